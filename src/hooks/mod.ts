/**
 * Hooks: commands the user (or a trusted project) sets to run at points of
 * a session, in Claude Code's shape and with its JSON on stdin.
 * `sources.ts` gathers them from the config and Claude Code's settings
 * files and applies the trust decision (host side); `session_hooks.ts` runs
 * them through the session's launcher (`run_command.ts`) and reads their
 * answers; `tool_hooks.ts` and `session_events.ts` are what the engine
 * calls around a tool call and at a prompt, a stop, a question and the end.
 */
export { sessionHookSpecs } from "./sources.ts";
export { SessionHooks } from "./session_hooks.ts";
export { HOOK_EVENTS, type HookSpec } from "./types.ts";
