/**
 * A `skiff run` whose session was still opening when `--max-time` ran out
 * (src/cli/run/deadline.ts). The engine had created the session (or claimed
 * the one `--continue`/`--session` named) and was stopped before its first
 * prompt; left so, the session stayed without a final status and the event
 * stream ended with no word of why. Here it is ended as a limit-ended run
 * ends: status "limit", then an `error` and a `session.completed` event,
 * stored with the session and handed to the caller to render. A run cut so
 * early that the engine had made no session yet gets one here, so the events
 * always name a session `skiff run --session` can continue.
 */
import { makeEvent, type SkiffEvent } from "../contracts/events.ts";
import type { RunOwner } from "../store/run_owner.ts";
import type { Store } from "../store/store.ts";
import { attributeFailure } from "./attribution.ts";
import type { EngineSpec } from "./types.ts";
import { isStoredEvent } from "./recorder.ts";

/** What the front end says about the cut. */
export interface StartCut {
  /** Why the run ended, naming `--max-time` (docs/events.md `error.message`). */
  message: string;
  /** The limit's exit code. */
  exitCode: number;
  /** The run's prompt: a session without a title gets its first line, as a run gives it. */
  prompt: string;
}

/**
 * Ends the session `run` holds (or a new one) as cut by the time limit and
 * returns its closing events, already stored. Call with the engine stopped
 * and before the run lets go of its sessions.
 */
export function endCutStart(
  store: Store,
  spec: EngineSpec & { run: RunOwner },
  cut: StartCut,
): SkiffEvent[] {
  const title = cut.prompt.trim().split("\n")[0].slice(0, 80);
  const sessionId = store.locks.heldBy(spec.run.run_id)[0] ?? store.createSession({
    workspace: spec.workspace,
    model: spec.model,
    agent: spec.agent,
    parentId: spec.parentId,
    title,
    holder: spec.run,
  }).id;
  if (!store.getSession(sessionId)?.title) store.updateSession(sessionId, { title });
  store.updateSession(sessionId, { status: "limit" });
  const message = `${cut.message} Continue with: skiff run --session ${sessionId} "…"`;
  const events: SkiffEvent[] = [
    makeEvent("error", sessionId, { code: "limit", message, exit_code: cut.exitCode }),
    makeEvent("session.completed", sessionId, {
      text: "",
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      turns: 0,
      exit_code: cut.exitCode,
      denials: [],
      attribution: attributeFailure({ code: "limit", message, denials: [] }),
    }),
  ];
  for (const event of events) if (isStoredEvent(event)) store.appendEvent(event);
  return events;
}
