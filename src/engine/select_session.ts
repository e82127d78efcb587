/**
 * Which stored session a run's selector names (`--session`, `--continue`).
 * Apart from engine/handle.ts, so the terminal side can ask it with the store loaded
 * only when a selector names one (session_hold.ts).
 */
import { UsageError } from "../contracts/usage_error.ts";
import type { Store } from "../store/store.ts";

/** Which session a run opens: one named, the latest, or (neither) a new one. */
export interface SessionSelector {
  sessionId?: string;
  continueLatest?: boolean;
  /**
   * A prompt is sent as soon as the session is open (`skiff run`): the
   * engine starts what that prompt's system prompt needs (the git summary)
   * while the session opens. Never for a session opened ahead of its prompt.
   */
  promptNext?: boolean;
}

/** The session a selector names in `workspace`, checked; undefined: start a new one. */
export function selectSession(
  store: Store,
  workspace: string,
  selector: SessionSelector,
): string | undefined {
  if (selector.sessionId) {
    const session = store.getSession(selector.sessionId);
    if (!session) {
      throw new UsageError(
        `no session ${selector.sessionId}. List sessions with: skiff sessions list --all`,
      );
    }
    // Its history, read-before-edit state and undo snapshots name files in
    // its own workspace; continuing it elsewhere would mix two folders.
    if (session.workspace !== workspace) {
      throw new UsageError(
        `session ${session.id} belongs to ${session.workspace}, not ${workspace}. Continue it there: skiff run --dir ${session.workspace} --session ${session.id} "…"`,
      );
    }
    return session.id;
  }
  if (selector.continueLatest) {
    // `skiff tool` batches are sessions too (so undo reverts them), but not
    // conversations: --continue picks up the latest one with the model.
    const latest = store.listSessions({ workspace, limit: 1000 })
      .find((session) => session.agent !== "tool");
    if (!latest) {
      throw new UsageError(
        `no earlier session in ${workspace} to continue. Run without --continue to start one.`,
      );
    }
    return latest.id;
  }
  return undefined;
}
