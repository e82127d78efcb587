/**
 * What a hook is once the host has read it: plain data that crosses into
 * the engine's Worker with the session's spec. Imports nothing.
 */

/** The events skiff runs hooks for, spelt as Claude Code spells them. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "SessionEnd",
  "Notification",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/**
 * Where a hook was written: the user's own files (`skiff-user`, the global
 * config; `claude-user`, ~/.claude/settings.json) or the project's
 * (`skiff-project`, its skiff.json; `claude-project`, its .claude settings).
 */
export type HookSource = "skiff-user" | "claude-user" | "skiff-project" | "claude-project";

/** One hook command, resolved for a session. */
export interface HookSpec {
  event: HookEventName;
  /** Tool names it runs for (PreToolUse, PostToolUse); absent, empty or `*`: every tool. */
  matcher?: string;
  /** A shell command, run with the session's shell. */
  command: string;
  /** Seconds before it is stopped. */
  timeoutSeconds: number;
  source: HookSource;
  /** The file it was written in. */
  file: string;
  /** Runs with the user's own rights, outside the command sandbox (the user's word only). */
  unsandboxed: boolean;
}

/** Seconds a hook may run when its entry gives no `timeout`, as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
