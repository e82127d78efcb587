/**
 * A session's hooks at work: which hooks an event meets, the JSON each gets
 * on stdin (Claude Code's fields: `session_id`, `cwd`, `hook_event_name`,
 * and the event's own), running them side by side, reporting each, and
 * reading what they answered. A hook answers by its exit status — 0 goes
 * on, 2 blocks with its stderr as the reason, anything else is a failure
 * that is reported and changes nothing — or by JSON on stdout
 * (`decision: "block"` with `reason`; PreToolUse's
 * `hookSpecificOutput.permissionDecision` "deny" or "allow";
 * `additionalContext`). A hook's "allow" only answers the rules' question:
 * it never lifts a deny.
 */
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import type { EventBodies } from "../contracts/events.ts";
import { type HookProcess, runHookCommand } from "./run_command.ts";
import { matcherCovers } from "./tool_names.ts";
import type { HookEventName, HookSpec } from "./types.ts";

/** One hook's run and what it printed as JSON, if it did. */
export interface HookOutcome {
  hook: HookSpec;
  process: HookProcess;
  json?: Record<string, unknown>;
}

export interface SessionHooksOptions {
  hooks: HookSpec[];
  /** The session's launcher: the command sandbox, as bash has it. */
  launcher: ProcessLauncher;
  /** The user's own rights, for a hook the user's global config let out of the sandbox. */
  userLauncher: () => ProcessLauncher;
  workspace: string;
  sessionId: string;
  /** Sends one `hook.completed` event. */
  report(body: EventBodies["hook.completed"]): void;
  /** Stops running hooks with the session. */
  signal?: AbortSignal;
}

/** What shown output of one hook is kept in its event. */
const EVENT_OUTPUT_CHARS = 4_000;

/** The session's hooks, ready to run at each event. */
export class SessionHooks {
  constructor(private readonly options: SessionHooksOptions) {}

  /** Whether any hook is set for `event`: the caller builds no input otherwise. */
  has(event: HookEventName): boolean {
    return this.options.hooks.some((hook) => hook.event === event);
  }

  /**
   * Runs every hook of `event` (those whose matcher covers `toolNames`, for
   * the tool events) at once, with `fields` added to the common input;
   * `signal` stops them sooner than the session's end does. Never throws:
   * a hook that fails is reported and passed over.
   */
  async run(
    event: HookEventName,
    fields: Record<string, unknown>,
    options: { toolNames?: string[]; callId?: string; signal?: AbortSignal } = {},
  ): Promise<HookOutcome[]> {
    const hooks = this.options.hooks.filter((hook) =>
      hook.event === event &&
      (options.toolNames === undefined || matcherCovers(hook.matcher, options.toolNames))
    );
    if (!hooks.length) return [];
    const input = JSON.stringify({
      session_id: this.options.sessionId,
      transcript_path: "",
      cwd: this.options.workspace,
      hook_event_name: event,
      ...fields,
    });
    // The same command written in two files runs once, as in Claude Code.
    const unique = [...new Map(hooks.map((hook) => [`${hook.unsandboxed}\0${hook.command}`, hook]))
      .values()];
    return await Promise.all(unique.map(async (hook) => {
      const process = await runHookCommand({
        launcher: hook.unsandboxed ? this.options.userLauncher() : this.options.launcher,
        command: hook.command,
        workspace: this.options.workspace,
        input,
        timeoutMs: hook.timeoutSeconds * 1000,
        signal: options.signal && this.options.signal
          ? AbortSignal.any([options.signal, this.options.signal])
          : options.signal ?? this.options.signal,
      });
      const outcome: HookOutcome = { hook, process, json: jsonAnswer(process) };
      this.#report(outcome, options.callId);
      return outcome;
    }));
  }

  #report(outcome: HookOutcome, callId: string | undefined): void {
    const { hook, process } = outcome;
    const text = process.startError
      ? `could not start: ${process.startError}`
      : [process.stderr.trim(), process.stdout.trim()].filter(Boolean).join("\n");
    this.options.report({
      hook_event: hook.event,
      command: hook.command,
      source: hook.source,
      ok: process.code === 0 || process.code === 2,
      exit_code: process.code,
      ...(process.timedOut ? { timed_out: true } : {}),
      ...(blockOf(outcome) !== undefined ? { blocked: true } : {}),
      ...(hook.unsandboxed ? { unsandboxed: true } : {}),
      ...(callId ? { call_id: callId } : {}),
      output: text.length > EVENT_OUTPUT_CHARS ? `${text.slice(0, EVENT_OUTPUT_CHARS)}\n…` : text,
      duration_ms: process.durationMs,
    });
  }
}

/** The reason the first blocking hook gave, or undefined when none blocked. */
export function blockReason(outcomes: HookOutcome[]): string | undefined {
  for (const outcome of outcomes) {
    const reason = blockOf(outcome);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Whether a PreToolUse hook approved the call (and none blocked it). */
export function hookApproved(outcomes: HookOutcome[]): boolean {
  if (blockReason(outcomes) !== undefined) return false;
  return outcomes.some(({ json }) =>
    json?.decision === "approve" || specific(json)?.permissionDecision === "allow"
  );
}

/**
 * Text the hooks add for the model: `additionalContext`, and for the events
 * whose plain output Claude Code adds (`plainStdout`), what a hook that
 * succeeded printed when it was not JSON.
 */
export function addedContext(outcomes: HookOutcome[], plainStdout: boolean): string {
  const parts: string[] = [];
  for (const { process, json } of outcomes) {
    const context = specific(json)?.additionalContext;
    if (typeof context === "string" && context.trim()) parts.push(context.trim());
    else if (plainStdout && !json && process.code === 0 && process.stdout.trim()) {
      parts.push(process.stdout.trim());
    }
  }
  return parts.join("\n");
}

function blockOf({ hook, process, json }: HookOutcome): string | undefined {
  const fallback = `blocked by the ${hook.event} hook \`${hook.command}\``;
  if (process.code === 2) return process.stderr.trim() || fallback;
  if (process.code !== 0) return undefined;
  const decision = specific(json)?.permissionDecision;
  if (decision === "deny") {
    return stringOr(specific(json)?.permissionDecisionReason, stringOr(json?.reason, fallback));
  }
  if (json?.decision === "block") return stringOr(json.reason, fallback);
  return undefined;
}

function specific(json: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const value = json?.hookSpecificOutput;
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.trim() ? value.trim() : fallback;
}

/** stdout as JSON when a hook that exited 0 printed an object. */
function jsonAnswer(process: HookProcess): Record<string, unknown> | undefined {
  const text = process.stdout.trim();
  if (process.code !== 0 || !text.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
