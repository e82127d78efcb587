/**
 * The search tools: glob (names), grep (contents, ripgrep when present),
 * symbol (definitions and uses of a name, on grep's engines) and list (a
 * folder tree). They share the walk, the ignore rules and the
 * read-rule filtering in this folder's `_…` modules.
 */
export { globTool } from "./glob.ts";
export { grepTool } from "./grep.ts";
export { listTool } from "./list.ts";
export { symbolTool } from "./symbol.ts";
