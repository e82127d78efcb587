/**
 * A session's event log: every event stored whole, numbered in the order it
 * was appended (`seq`, 1, 2, …, per session). The next number is kept per
 * session instead of found by a scan of the log: one run writes a session at
 * a time (src/store/session_locks.ts), and the primary key (session, seq)
 * checks the guess, so a session another connection appended to since goes
 * back to the log's own count.
 */
import type { SkiffEvent } from "../contracts/events.ts";
import type { Statements } from "./_rows.ts";
import { StoreError } from "./errors.ts";

export class EventLog {
  /** The seq of the last event this connection appended, per session. */
  readonly #lastSeq = new Map<string, number>();

  constructor(
    private readonly sql: Statements,
    private readonly now: () => number,
    private readonly exists: (sessionId: string) => boolean,
  ) {}

  /**
   * Append an event, stored whole. An event with an empty `session_id`
   * (something that happened before any session existed) is not stored.
   */
  append(event: SkiffEvent): void {
    const id = event.session_id;
    if (!id) return;
    const parsed = Date.parse(event.timestamp);
    const at = Number.isFinite(parsed) ? parsed : this.now();
    const payload = JSON.stringify(event);
    // Inside a transaction the row may yet be rolled back: no guess is kept.
    const inTransaction = this.sql.inTransaction;
    const last = inTransaction ? undefined : this.#lastSeq.get(id);
    this.#lastSeq.delete(id);
    if (last !== undefined) {
      try {
        this.sql.run(
          "INSERT INTO events (session_id, seq, type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
          id,
          last + 1,
          event.type,
          payload,
          at,
        );
        this.#lastSeq.set(id, last + 1);
        return;
      } catch (error) {
        // Taken: another connection appended since (or the session is gone: told below).
        if (!/constraint/i.test((error as Error).message)) throw this.#failure(event, error);
      }
    }
    let row;
    try {
      row = this.sql.get(
        `INSERT INTO events (session_id, seq, type, payload, created_at)
         SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM events WHERE session_id = ?
         RETURNING seq`,
        id,
        event.type,
        payload,
        at,
        id,
      );
    } catch (error) {
      throw this.#failure(event, error);
    }
    if (!inTransaction && row) this.#lastSeq.set(id, row.seq as number);
  }

  list(sessionId: string): SkiffEvent[] {
    return this.sql.all("SELECT payload FROM events WHERE session_id = ? ORDER BY seq", sessionId)
      .map((row) => JSON.parse(row.payload as string) as SkiffEvent);
  }

  /** Sessions were deleted: keep no number for any. */
  forget(): void {
    this.#lastSeq.clear();
  }

  #failure(event: SkiffEvent, error: unknown): unknown {
    if (this.exists(event.session_id)) return error;
    return new StoreError(`no session ${event.session_id} to record a ${event.type} event in.`);
  }
}
