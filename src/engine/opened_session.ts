/**
 * What `Engine.open()` builds and every prompt of the session shares: the
 * session row, its file ledger (read-before-edit state, undo snapshots) and
 * its tools. Per-prompt state (abort, deadline, prompt number) lives in
 * src/engine/prompt_run.ts instead.
 */
import type { EventBodies, EventType } from "../contracts/events.ts";
import { FileLedger, hashContent } from "../tools/files/mod.ts";
import { ABSENT } from "../store/snapshots.ts";
import { LINK_MODE } from "../undo/undo.ts";
import type { Session, Store } from "../store/store.ts";
import type { SessionParts } from "./session_parts.ts";

export type Emit = <K extends EventType>(type: K, body: EventBodies[K]) => void;

export class EngineSession {
  constructor(
    readonly session: Session,
    readonly ledger: FileLedger,
    readonly parts: SessionParts,
    readonly emit: Emit,
  ) {}

  get id(): string {
    return this.session.id;
  }
}

/**
 * The session's file ledger, filing undo snapshots in the store: under this
 * session's current prompt, or (a subagent) under its parent's session and
 * prompt, so `skiff undo` of that prompt also puts back what the subagent changed.
 */
export function undoLedger(
  store: Store,
  sessionId: string,
  undoInto?: { sessionId: string; prompt: number },
): FileLedger {
  return new FileLedger(
    {
      save: (prompt, path, before) => {
        const target = undoInto ?? { sessionId, prompt };
        const mode = before === null ? null : modeOf(path);
        store.snapshots.save(target.sessionId, target.prompt, path, before, mode);
      },
      expect: (prompt, path, after) => {
        const target = undoInto ?? { sessionId, prompt };
        const state = after === null ? ABSENT : hashContent(after);
        store.undoJournal.expect(target.sessionId, target.prompt, path, state);
      },
    },
    store.getFileReads(sessionId),
  );
}

/** Permission bits of an existing file, for undo to restore; null when unreadable. */
function modeOf(path: string): number | null {
  try {
    // A link is kept as a link (its text is the snapshot's content), not as
    // a copy of the file it points to.
    if (Deno.lstatSync(path).isSymlink) return LINK_MODE;
    const mode = Deno.statSync(path).mode;
    return mode === null ? null : mode & 0o7777;
  } catch {
    return null;
  }
}
