/**
 * `skiff batch` records: one row per batch (its task list as given, so
 * `--resume` needs nothing but the id, and the shard it ran), one row per
 * task (its latest session, status, exit code and timing), and one row per
 * session a task ran: `--resume` runs a stopped task again in a new session,
 * and undo must reach them all. A task's status moves pending → running →
 * succeeded | failed; a batch killed mid-way leaves "running" rows, which
 * resume runs again like pending ones.
 */
import type { Statements } from "./_rows.ts";
import { newSessionId } from "./ids.ts";

export type BatchTaskStatus = "pending" | "running" | "succeeded" | "failed";

export interface BatchRow {
  id: string;
  createdAt: number;
  /** The batch's tasks and options as JSON (src/cli/batch/tasks.ts). */
  spec: string;
  /** "K/N" when the batch ran one shard, else null. */
  shard: string | null;
}

export interface BatchTaskRow {
  taskId: string;
  seq: number;
  sessionId: string | null;
  status: BatchTaskStatus;
  exitCode: number | null;
  startedAt: number | null;
  endedAt: number | null;
  /** Why it failed, in a line; empty otherwise. */
  detail: string;
}

/** One session a task ran in; a task run again by `--resume` has several. */
export interface BatchTaskSession {
  taskId: string;
  sessionId: string;
  startedAt: number;
}

export class BatchTable {
  constructor(private readonly sql: Statements, private readonly now: () => number) {}

  /** A new batch with its tasks, all pending; resolves to its id. */
  create(spec: string, shard: string | null, taskIds: string[]): string {
    const at = this.now();
    const id = `batch_${newSessionId(at).replace(/^ses_/, "")}`;
    this.sql.transaction(() => {
      this.sql.run(
        "INSERT INTO batches (id, created_at, spec, shard) VALUES (?, ?, ?, ?)",
        id,
        at,
        spec,
        shard,
      );
      taskIds.forEach((taskId, seq) =>
        this.sql.run(
          "INSERT INTO batch_tasks (batch_id, task_id, seq) VALUES (?, ?, ?)",
          id,
          taskId,
          seq,
        )
      );
    });
    return id;
  }

  get(id: string): BatchRow | undefined {
    const row = this.sql.get("SELECT * FROM batches WHERE id = ?", id);
    if (!row) return undefined;
    return {
      id: String(row.id),
      createdAt: Number(row.created_at),
      spec: String(row.spec),
      shard: row.shard === null ? null : String(row.shard),
    };
  }

  /** Batches whose id starts with `prefix`, newest first. */
  find(prefix: string): string[] {
    return this.sql.all(
      "SELECT id FROM batches WHERE id LIKE ? ESCAPE '\\' ORDER BY created_at DESC",
      prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + "%",
    ).map((row) => String(row.id));
  }

  tasks(batchId: string): BatchTaskRow[] {
    return this.sql.all("SELECT * FROM batch_tasks WHERE batch_id = ? ORDER BY seq", batchId)
      .map((row) => ({
        taskId: String(row.task_id),
        seq: Number(row.seq),
        sessionId: row.session_id === null ? null : String(row.session_id),
        status: String(row.status) as BatchTaskStatus,
        exitCode: row.exit_code === null ? null : Number(row.exit_code),
        startedAt: row.started_at === null ? null : Number(row.started_at),
        endedAt: row.ended_at === null ? null : Number(row.ended_at),
        detail: String(row.detail),
      }));
  }

  /** Every session the batch's tasks ran in, the newest first (the order undo takes them back). */
  sessions(batchId: string): BatchTaskSession[] {
    return this.sql.all(
      "SELECT task_id, session_id, started_at FROM batch_task_sessions WHERE batch_id = ? " +
        "ORDER BY id DESC",
      batchId,
    ).map((row) => ({
      taskId: String(row.task_id),
      sessionId: String(row.session_id),
      startedAt: Number(row.started_at),
    }));
  }

  /** The task started in `sessionId`; the sessions it ran in before stay on record. */
  started(batchId: string, taskId: string, sessionId: string): void {
    const at = this.now();
    this.sql.transaction(() => {
      this.sql.run(
        `UPDATE batch_tasks SET status = 'running', session_id = ?, started_at = ?, ended_at = NULL,
         exit_code = NULL, detail = '' WHERE batch_id = ? AND task_id = ?`,
        sessionId,
        at,
        batchId,
        taskId,
      );
      this.sql.run(
        `INSERT OR IGNORE INTO batch_task_sessions (batch_id, task_id, session_id, started_at)
         VALUES (?, ?, ?, ?)`,
        batchId,
        taskId,
        sessionId,
        at,
      );
    });
  }

  /** The task ended with `exitCode`; "pending" (interrupted) runs again on resume. */
  ended(
    batchId: string,
    taskId: string,
    status: BatchTaskStatus,
    exitCode: number,
    detail = "",
  ): void {
    this.sql.run(
      `UPDATE batch_tasks SET status = ?, exit_code = ?, ended_at = ?, detail = ?
       WHERE batch_id = ? AND task_id = ?`,
      status,
      exitCode,
      this.now(),
      detail,
      batchId,
      taskId,
    );
  }
}
