/**
 * The hooks of a session's own moments, in the shape the engine calls them:
 * a prompt submitted (with the session's start before its first one), the
 * run's stop, a notification (a question for the user), the session's end.
 * What a UserPromptSubmit or SessionStart hook prints goes to the model with
 * the prompt, as Claude Code adds it; a UserPromptSubmit block refuses the
 * prompt. Each never throws: a failing hook is reported and passed over.
 */
import { addedContext, blockReason, type SessionHooks } from "./session_hooks.ts";

/**
 * Runs SessionStart (when `start` is given: "startup" for a new session,
 * "resume" for one continued) and UserPromptSubmit for `prompt`. Returns
 * the prompt with what the hooks added, or the reason a hook refused it.
 */
export async function promptHooks(
  hooks: SessionHooks,
  prompt: string,
  start?: "startup" | "resume",
): Promise<{ prompt: string } | { block: string }> {
  const added: string[] = [];
  if (start && hooks.has("SessionStart")) {
    added.push(addedContext(await hooks.run("SessionStart", { source: start }), true));
  }
  if (hooks.has("UserPromptSubmit")) {
    const outcomes = await hooks.run("UserPromptSubmit", { prompt });
    const block = blockReason(outcomes);
    if (block !== undefined) return { block };
    added.push(addedContext(outcomes, true));
  }
  const context = added.filter(Boolean).join("\n");
  return { prompt: context ? `${prompt}\n\n${context}` : prompt };
}

/**
 * Runs the Stop hooks as the agent ends its turn; `active` is Claude
 * Code's `stop_hook_active`: this turn was itself a Stop hook's
 * continuation, so a hook can let the run end instead of looping.
 * `signal` stops the hooks with the run (Ctrl-C, `--max-time`). Returns
 * the first block's reason: the run goes on with it as the next message;
 * none when a hook answered `continue: false`.
 */
export async function stopHooks(
  hooks: SessionHooks,
  active: boolean,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (!hooks.has("Stop")) return undefined;
  const outcomes = await hooks.run("Stop", { stop_hook_active: active }, { signal });
  // `continue: false` wins over any block, as in Claude Code: the run ends.
  if (outcomes.some(({ json }) => json?.continue === false)) return undefined;
  return blockReason(outcomes);
}

/**
 * Runs the Notification hooks for `message`, something waiting for the
 * user. `type` is Claude Code's `notification_type` (`permission_prompt`: a
 * question; `idle_prompt`: the chat's input, untouched for a while), which a
 * Notification hook's matcher is matched against.
 */
export async function notificationHooks(
  hooks: SessionHooks,
  message: string,
  type: "permission_prompt" | "idle_prompt",
): Promise<void> {
  if (!hooks.has("Notification")) return;
  await hooks.run("Notification", { message, notification_type: type }, { toolNames: [type] });
}

/** Runs the SessionEnd hooks as the session closes. */
export async function sessionEndHooks(hooks: SessionHooks, reason: string): Promise<void> {
  if (hooks.has("SessionEnd")) await hooks.run("SessionEnd", { reason });
}
