/**
 * The tools the model calls. `tool.ts` is the contract: `defineTool` with a
 * zod schema, `declare` (what a call would touch, judged before it runs)
 * and `execute` (given only its `ToolContext`). `registry.ts` holds the
 * table (`builtinTools`) and turns schemas into the JSON the model sees
 * (generated ahead of time into `generated_tool_parameters.ts` by
 * `scripts/gen_tool_parameters.ts`). One folder per group, each with its
 * `mod.ts`: `files/` (read, write, edit, apply_patch, copy, delete; the file
 * ledger and the change set every write goes through), `search/`, `process/`
 * (bash, background processes), `web/` (webfetch), `session/` (todo, task,
 * skill, done_propose, harness memory). Output is cut for the model in
 * `truncate.ts`, the whole kept in the data folder; paths resolve in
 * `tool_paths.ts`. docs/tools.md documents each tool.
 */
export { defineTool } from "./tool.ts";
export { builtinTools, parseToolInput } from "./registry.ts";
