/**
 * Small helpers under the store: a cache of prepared statements, and turning
 * rows (which node:sqlite returns without a prototype) into plain objects.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { Session } from "./types.ts";

/** Columns of `session_locks` that name the holder, as one JSON value (for `SESSION_COLUMNS`). */
const HOLDER_JSON = `(SELECT json_object('run_id', l.run_id, 'host', l.host, 'pid', l.pid,
  'pid_started', l.pid_started, 'acquired_at', l.acquired_at, 'heartbeat_at', l.heartbeat_at)
  FROM session_locks l WHERE l.session_id = sessions.id) AS holder`;

export const SESSION_COLUMNS =
  "id, workspace, title, model, agent, parent_id, created_at, updated_at, " +
  `status, input_tokens, output_tokens, total_tokens, turns, ${HOLDER_JSON}`;

export class Statements {
  #cache = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {}

  #statement(sql: string): StatementSync {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#cache.set(sql, statement);
    }
    return statement;
  }

  run(
    sql: string,
    ...params: SQLInputValue[]
  ): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#statement(sql).run(...params);
  }

  get(sql: string, ...params: SQLInputValue[]): Record<string, unknown> | undefined {
    return this.#statement(sql).get(...params) as Record<string, unknown> | undefined;
  }

  /** True inside a transaction not yet committed or rolled back. */
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /** `work` in one write transaction, taken at once (BEGIN IMMEDIATE) or waited for. */
  transaction<T>(work: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  all(sql: string, ...params: SQLInputValue[]): Record<string, unknown>[] {
    return this.#statement(sql).all(...params) as Record<string, unknown>[];
  }
}

/** A plain object (node:sqlite rows have no prototype). */
export function toSession(row: Record<string, unknown>): Session {
  return {
    id: row.id as string,
    workspace: row.workspace as string,
    title: row.title as string,
    model: row.model as string,
    agent: row.agent as string,
    parent_id: (row.parent_id as string | null) ?? null,
    created_at: row.created_at as number,
    updated_at: row.updated_at as number,
    status: row.status as string,
    input_tokens: row.input_tokens as number,
    output_tokens: row.output_tokens as number,
    total_tokens: row.total_tokens as number,
    turns: row.turns as number,
  };
}
