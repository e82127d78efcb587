/**
 * Definitions a person writes as markdown with YAML frontmatter: agents
 * (`agents/`: the built-in ones, files found in the project and the user's
 * folders, fields checked, subagents), skills (`skills.ts`) and custom
 * commands (`commands.ts`; what their `` !`command` `` lines and `@path`s
 * become when one is sent, through tools the caller passes: `command_prompt.ts`). `frontmatter.ts` reads the frontmatter, loading
 * the YAML parser only when a file has some. Files are read by their real
 * path inside the project (src/config/regular_file.ts `realPathInside`).
 */
export { loadAgentsAsync, resolveAgents } from "./agents/load.ts";
export { loadSkillsAsync } from "./skills.ts";
export { expandCommand, loadCustomCommandsAsync } from "./commands.ts";
export { parseFrontmatter } from "./frontmatter.ts";
