/**
 * One run writes a session at a time. A run holds a session by a row in
 * `session_locks` naming it (src/store/run_owner.ts); another run may take the
 * session only once that run is gone: its process dead by /proc, or, where
 * /proc cannot tell, its heartbeat stale. Nothing has to be cleaned up after
 * a killed run: its row simply stops counting. A session is "running" only
 * while a live run holds it; one left "running" by a run that died is shown
 * as "stopped".
 */
import type { Statements } from "./_rows.ts";
import { type Liveness, type RunOwner, STALE_AFTER_MS } from "./run_owner.ts";

/** A row of `session_locks`, as stored. */
export interface SessionHolder extends RunOwner {
  acquired_at: number;
  heartbeat_at: number;
}

export type Claim = { kind: "claimed" } | { kind: "held"; holder: SessionHolder };

export class SessionLocks {
  constructor(
    private readonly sql: Statements,
    private readonly now: () => number,
    private readonly liveness: (owner: RunOwner) => Liveness,
  ) {}

  /** Whether `holder` still counts: its run alive, or (when that cannot be told) beating. */
  holds(holder: SessionHolder): boolean {
    const state = this.liveness(holder);
    if (state !== "unknown") return state === "alive";
    return this.now() - holder.heartbeat_at < STALE_AFTER_MS;
  }

  /**
   * Hold `sessionId` for `owner`, unless another live run holds it. A claimed
   * session is "running" again. Call inside a write transaction, or through
   * `claim`.
   */
  claimWithin(sessionId: string, owner: RunOwner): Claim {
    const row = this.sql.get("SELECT * FROM session_locks WHERE session_id = ?", sessionId);
    const holder = row ? toHolder(row) : undefined;
    if (holder && holder.run_id !== owner.run_id && this.holds(holder)) {
      return { kind: "held", holder };
    }
    const at = this.now();
    this.sql.run(
      `INSERT OR REPLACE INTO session_locks
       (session_id, run_id, host, pid, pid_started, acquired_at, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      sessionId,
      owner.run_id,
      owner.host,
      owner.pid,
      owner.pid_started,
      at,
      at,
    );
    this.sql.run("UPDATE sessions SET status = 'running' WHERE id = ?", sessionId);
    return { kind: "claimed" };
  }

  /** `claimWithin` in its own transaction: two runs claiming at once cannot both win. */
  claim(sessionId: string, owner: RunOwner): Claim {
    return this.sql.transaction(() => this.claimWithin(sessionId, owner));
  }

  /** Whether a live run holds any session in `workspace`. */
  liveIn(workspace: string): boolean {
    return this.sql.all(
      `SELECT locks.* FROM session_locks locks JOIN sessions ses ON ses.id = locks.session_id
       WHERE ses.workspace = ?`,
      workspace,
    ).some((row) => this.holds(toHolder(row)));
  }

  /** The run is still here: renew every session it holds. */
  beat(runId: string): void {
    this.sql.run("UPDATE session_locks SET heartbeat_at = ? WHERE run_id = ?", this.now(), runId);
  }

  /** The sessions `runId` holds, oldest claim first. */
  heldBy(runId: string): string[] {
    return this.sql.all(
      "SELECT session_id FROM session_locks WHERE run_id = ? ORDER BY acquired_at, session_id",
      runId,
    ).map((row) => row.session_id as string);
  }

  /** Let go of every session `runId` holds (its subagents' sessions too). */
  release(runId: string): void {
    this.sql.run("DELETE FROM session_locks WHERE run_id = ?", runId);
  }

  /**
   * The status to show: "running" is true only while a live run holds the
   * session; a run that died without saying how it ended left it "stopped".
   */
  effectiveStatus(status: string, holderJson: unknown): string {
    if (status !== "running") return status;
    if (typeof holderJson !== "string") return "stopped";
    return this.holds(JSON.parse(holderJson) as SessionHolder) ? "running" : "stopped";
  }
}

function toHolder(row: Record<string, unknown>): SessionHolder {
  return {
    run_id: row.run_id as string,
    host: row.host as string,
    pid: row.pid as number,
    pid_started: (row.pid_started as string | null) ?? null,
    acquired_at: row.acquired_at as number,
    heartbeat_at: row.heartbeat_at as number,
  };
}
