/**
 * What every layer speaks, so that none has to import another's internals:
 * the one event stream (`events.ts`, documented in docs/events.md), what a
 * tool call would touch and how a tool fails (`tool_call.ts`: `Access`,
 * `ToolError`), how a command is started (`process_launcher.ts`), skiff's
 * error family (`errors.ts`, `usage_error.ts`), MCP tool names
 * (`mcp_names.ts`), the todo list, where snapshots go
 * (`snapshot_sink.ts`), secrets taken out of published text (`redact.ts`),
 * the reasoning efforts (`reasoning_effort.ts`), an editor's view of the
 * files (`editor_files.ts`) and skiff's own entry point (`entry.ts`). Types and small rules only:
 * nothing of skiff outside src/lib/, no package.
 */
export type { SkiffEvent } from "./events.ts";
export type { ProcessLauncher } from "./process_launcher.ts";
export { redactSecrets } from "./redact.ts";
export { ENTRY_URL } from "./entry.ts";
