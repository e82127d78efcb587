/**
 * The session database: one SQLite file (node:sqlite) in the data folder,
 * holding sessions, their messages and parts, the event log, todos, what the
 * model has read, and file snapshots for undo. Every write is its own
 * transaction and commits at once, so a killed process loses at most the
 * write in flight and the session resumes from what is stored. Two skiff
 * processes may share the file: WAL lets readers run beside a writer, and
 * the busy timeout makes a second writer wait instead of failing.
 *
 * No SQL leaves this folder; callers use the methods below.
 */
import * as path from "../lib/path.ts";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { SkiffEvent, Usage } from "../contracts/events.ts";
import type { Todo } from "../contracts/todo.ts";
import { DATABASE_FILE, ensureDataDir } from "./data_dir.ts";
import { StoreError } from "./errors.ts";
import { newId, newSessionId } from "./ids.ts";
import { migrate } from "./migrations.ts";
import { SESSION_COLUMNS, Statements, toSession } from "./_rows.ts";
import { SnapshotTable } from "./snapshots.ts";
import { UndoJournal } from "./undo_journal.ts";
import { UsageTable } from "./usage.ts";
import { BatchTable } from "./batches.ts";
import { MemoryTable } from "./memory.ts";
import { processLiveness } from "./run_owner.ts";
import { SessionLocks } from "./session_locks.ts";
import { EventLog } from "./event_log.ts";
import { FileReads } from "./file_reads.ts";
import type {
  HistoryMessage,
  NewSession,
  Session,
  SessionPatch,
  Snapshot,
  StoreOptions,
} from "./types.ts";

export type { HistoryMessage, NewSession, Session, SessionPatch, Snapshot, StoreOptions };

const BUSY_TIMEOUT_MS = 5000;

/**
 * Open (creating if needed) the database in `dataDir` and bring its schema up
 * to date. Needs read and write access to `dataDir`.
 */
export function openStore(dataDir: string, options: StoreOptions = {}): Store {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, DATABASE_FILE);
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file);
    // The busy timeout first: switching to WAL may itself wait on another process.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    // In WAL mode NORMAL survives a killed process; only a power cut can lose the last commit.
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db);
  } catch (error) {
    if (db?.isOpen) db.close();
    if (error instanceof StoreError) throw error;
    const reason = (error as Error).message;
    // A damaged file will not heal; permissions are not what is wrong with it.
    if (/not a database|malformed|corrupt/i.test(reason)) {
      throw new StoreError(
        `the session database ${file} is damaged or is not a skiff database (${reason}). ` +
          `Move it aside (mv "${file}" "${file}.broken") and run skiff again to start a fresh ` +
          "one, or set SKIFF_DATA_DIR to another folder.",
      );
    }
    throw new StoreError(
      `cannot open the session database ${file}: ${reason}. ` +
        "Check the folder's permissions, or set SKIFF_DATA_DIR to another folder.",
    );
  }
  return new Store(db, options.now ?? Date.now, options.liveness ?? processLiveness);
}

export class Store {
  readonly #sql: Statements;
  /** Undo snapshots (src/store/snapshots.ts). */
  readonly snapshots: SnapshotTable;
  /** What skiff is about to write or run, for undo after a kill (src/store/undo_journal.ts). */
  readonly undoJournal: UndoJournal;
  /** Which run writes each session (src/store/session_locks.ts). */
  readonly locks: SessionLocks;
  /** Per-request token usage and cost (src/store/usage.ts). */
  readonly usage: UsageTable;
  /** `skiff batch` runs and their tasks (src/store/batches.ts). */
  readonly batches: BatchTable;
  /** Harness memory: remembered entries and harness records (src/store/memory.ts). */
  readonly memory: MemoryTable;
  readonly #events: EventLog;
  readonly #reads: FileReads;

  constructor(
    private readonly db: DatabaseSync,
    private readonly now: () => number,
    liveness: ConstructorParameters<typeof SessionLocks>[2],
  ) {
    this.#sql = new Statements(db);
    this.snapshots = new SnapshotTable(this.#sql, now);
    this.undoJournal = new UndoJournal(this.#sql, now);
    this.locks = new SessionLocks(this.#sql, now, liveness);
    this.usage = new UsageTable(this.#sql, now);
    this.batches = new BatchTable(this.#sql, now);
    this.memory = new MemoryTable(this.#sql, now);
    this.#events = new EventLog(this.#sql, now, (id) => this.#exists(id));
    this.#reads = new FileReads(this.#sql, (id) => this.#requireSession(id));
  }

  /** A row as a session, its status as it stands now (a dead run's is "stopped"). */
  #toSession = (row: Record<string, unknown>): Session => {
    const session = toSession(row);
    session.status = this.locks.effectiveStatus(session.status, row.holder);
    if (session.status === "completed" && this.#endedDenied(session.id)) session.status = "denied";
    return session;
  };

  /**
   * Whether the last run of `id` ended with refused calls. Runs stored before
   * the status said so were stored "completed" with exit 3; their last
   * `session.completed` event still lists the denials.
   */
  #endedDenied(id: string): boolean {
    const row = this.#sql.get(
      "SELECT json_array_length(payload, '$.denials') AS denials FROM events " +
        "WHERE session_id = ? AND type = 'session.completed' ORDER BY seq DESC LIMIT 1",
      id,
    );
    return Number(row?.denials ?? 0) > 0;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  // --- sessions ---------------------------------------------------------

  createSession(input: NewSession): Session {
    const at = this.now();
    const id = newSessionId(at);
    this.#sql.transaction(() => {
      this.#sql.run(
        `INSERT INTO sessions (id, workspace, title, model, agent, parent_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        input.workspace,
        input.title ?? "",
        input.model,
        input.agent,
        input.parentId ?? null,
        at,
        at,
      );
      // In the same transaction: no other run can pick the new session up first.
      if (input.holder) this.locks.claimWithin(id, input.holder);
    });
    return this.getSession(id)!;
  }

  /**
   * A session by id, or by a prefix that matches exactly one session (with
   * or without the `ses_`). Throws `StoreError` when a prefix is ambiguous.
   */
  getSession(idOrPrefix: string): Session | undefined {
    const exact = this.#sql.get(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`, idOrPrefix);
    if (exact) return this.#toSession(exact);
    if (!idOrPrefix) return undefined;
    const prefixes = idOrPrefix.startsWith("ses_")
      ? [idOrPrefix]
      : [idOrPrefix, `ses_${idOrPrefix}`];
    const matches = new Map<string, Record<string, unknown>>();
    for (const prefix of prefixes) {
      const rows = this.#sql.all(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 6`,
        prefix.length,
        prefix,
      );
      for (const row of rows) matches.set(row.id as string, row);
    }
    if (matches.size === 1) return this.#toSession([...matches.values()][0]);
    if (matches.size > 1) {
      throw ambiguousPrefix(idOrPrefix, [...matches.values()].map(this.#toSession));
    }
    return undefined;
  }

  /** The most recently active top-level session in `workspace` (subagent sessions excluded). */
  latestSession(workspace: string): Session | undefined {
    const row = this.#sql.get(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE workspace = ? AND parent_id IS NULL
       ORDER BY updated_at DESC, rowid DESC LIMIT 1`,
      workspace,
    );
    return row ? this.#toSession(row) : undefined;
  }

  /**
   * Sessions, most recently active first. Subagent sessions are left out
   * unless `includeChildren`. @default limit 50
   */
  listSessions(
    options: { workspace?: string; limit?: number; includeChildren?: boolean } = {},
  ): Session[] {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (options.workspace !== undefined) {
      where.push("workspace = ?");
      params.push(options.workspace);
    }
    if (!options.includeChildren) where.push("parent_id IS NULL");
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    params.push(Math.max(0, Math.trunc(options.limit ?? 50)));
    return this.#sql.all(
      `SELECT ${SESSION_COLUMNS} FROM sessions ${clause} ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
      ...params,
    ).map(this.#toSession);
  }

  /** Sessions started by `parentId`'s task tool, oldest first. */
  childSessions(parentId: string): Session[] {
    return this.#sql.all(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE parent_id = ? ORDER BY created_at, rowid`,
      parentId,
    ).map(this.#toSession);
  }

  updateSession(id: string, patch: SessionPatch): void {
    const columns = (["title", "model", "agent", "status"] as const).filter((key) =>
      patch[key] !== undefined
    );
    const values = columns.map((key) => patch[key] as string);
    this.#requireChange(
      this.#sql.run(
        `UPDATE sessions SET ${
          columns.map((c) => `${c} = ?, `).join("")
        }updated_at = ? WHERE id = ?`,
        ...values,
        this.now(),
        id,
      ),
      id,
    );
  }

  /** Delete a session with everything it holds, its subagent sessions included. */
  deleteSession(id: string): boolean {
    // Its subagent sessions go too: forget what is known of every session.
    this.#events.forget();
    this.#reads.forget();
    return Number(this.#sql.run("DELETE FROM sessions WHERE id = ?", id).changes) > 0;
  }

  /**
   * Add one step's token usage to the session's totals; `turnsDelta` counts
   * finished turns. A model request's usage goes through `usage.record`,
   * which also keeps it per request.
   */
  addUsage(id: string, usage: Usage, turnsDelta = 0): void {
    this.#requireChange(
      this.#sql.run(
        `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
         total_tokens = total_tokens + ?, turns = turns + ?, updated_at = ? WHERE id = ?`,
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        turnsDelta,
        this.now(),
        id,
      ),
      id,
    );
  }

  getTodos(id: string): Todo[] {
    return this.#jsonColumn(id, "todos") as Todo[];
  }

  setTodos(id: string, todos: Todo[]): void {
    this.#requireChange(
      this.#sql.run("UPDATE sessions SET todos = ? WHERE id = ?", JSON.stringify(todos), id),
      id,
    );
  }

  /** Path → content hash the model has seen (the read-before-edit ledger), in the order first seen. */
  getFileReads(id: string): [string, string][] {
    return this.#reads.get(id);
  }

  /** The ledger becomes `entries`, writing only what changed (src/store/file_reads.ts). */
  saveFileReads(id: string, entries: [string, string][]): void {
    this.#reads.save(id, entries);
  }

  // --- messages and parts -----------------------------------------------

  /** A new message at the end of the session; returns its id. */
  appendMessage(sessionId: string, role: string): string {
    const at = this.now();
    this.#requireChange(
      this.#sql.run("UPDATE sessions SET updated_at = ? WHERE id = ?", at, sessionId),
      sessionId,
    );
    const id = newId("msg", at);
    this.#sql.run(
      `INSERT INTO messages (id, session_id, seq, role, created_at)
       SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ? FROM messages WHERE session_id = ?`,
      id,
      sessionId,
      role,
      at,
      sessionId,
    );
    return id;
  }

  /** A part at the end of a message; `payload` is stored as JSON. Returns its id. */
  appendPart(sessionId: string, messageId: string, type: string, payload: unknown): string {
    const at = this.now();
    const id = newId("prt", at);
    const result = this.#sql.run(
      `INSERT INTO parts (id, message_id, session_id, seq, type, payload, created_at)
       SELECT ?, m.id, m.session_id,
              (SELECT COALESCE(MAX(seq), 0) + 1 FROM parts WHERE message_id = m.id), ?, ?, ?
       FROM messages m WHERE m.id = ? AND m.session_id = ?`,
      id,
      type,
      JSON.stringify(payload ?? null),
      at,
      messageId,
      sessionId,
    );
    if (Number(result.changes) === 0) {
      throw new StoreError(`no message ${messageId} in session ${sessionId}.`);
    }
    return id;
  }

  /** Every message of the session in order, each with its part payloads in order. */
  loadHistory(sessionId: string): HistoryMessage[] {
    const rows = this.#sql.all(
      `SELECT m.id, m.seq, m.role, m.created_at, p.payload
       FROM messages m LEFT JOIN parts p ON p.message_id = m.id
       WHERE m.session_id = ? ORDER BY m.seq, p.seq`,
      sessionId,
    );
    const messages: HistoryMessage[] = [];
    for (const row of rows) {
      let last = messages[messages.length - 1];
      if (!last || last.id !== row.id) {
        last = {
          id: row.id as string,
          seq: row.seq as number,
          role: row.role as string,
          created_at: row.created_at as number,
          parts: [],
        };
        messages.push(last);
      }
      if (row.payload !== null) last.parts.push(JSON.parse(row.payload as string));
    }
    return messages;
  }

  // --- events -------------------------------------------------------------

  /**
   * Append an event, stored whole. An event with an empty `session_id`
   * (something that happened before any session existed) is not stored.
   */
  appendEvent(event: SkiffEvent): void {
    this.#events.append(event);
  }

  listEvents(sessionId: string): SkiffEvent[] {
    return this.#events.list(sessionId);
  }

  // --- helpers ------------------------------------------------------------

  #exists(id: string): boolean {
    return this.#sql.get("SELECT 1 AS found FROM sessions WHERE id = ?", id) !== undefined;
  }

  #requireChange(result: { changes: number | bigint }, id: string): void {
    if (Number(result.changes) === 0) {
      throw new StoreError(`no session ${id}. List sessions with: skiff sessions list`);
    }
  }

  #requireSession(id: string): void {
    if (!this.#sql.get("SELECT 1 FROM sessions WHERE id = ?", id)) {
      throw new StoreError(`no session ${id}. List sessions with: skiff sessions list`);
    }
  }

  #jsonColumn(id: string, column: "todos"): unknown {
    const row = this.#sql.get(`SELECT ${column} AS value FROM sessions WHERE id = ?`, id);
    if (!row) throw new StoreError(`no session ${id}. List sessions with: skiff sessions list`);
    return JSON.parse(row.value as string);
  }
}

/**
 * The error for a prefix that names several sessions: each candidate by the
 * shortest prefix that tells it apart, with when and what, so the user can
 * type the right one. `candidates` are the first matches in id order.
 */
function ambiguousPrefix(prefix: string, candidates: Session[]): StoreError {
  const ids = candidates.map((session) => session.id).sort();
  const shown = candidates.sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, 5).map((session) => {
    const at = ids.indexOf(session.id);
    const common = Math.max(
      commonLength(session.id, ids[at - 1] ?? ""),
      commonLength(session.id, ids[at + 1] ?? ""),
    );
    const when = new Date(session.created_at).toISOString().replace("T", " ").slice(0, 16);
    return `  ${session.id.slice(0, common + 1)}  ${when}  ${session.title || "(untitled)"}`;
  });
  const more = candidates.length > shown.length ? "\n  …" : "";
  return new StoreError(
    `"${prefix}" matches more than one session. Give more of the id, e.g.:\n${
      shown.join("\n")
    }${more}`,
  );
}

function commonLength(a: string, b: string): number {
  let length = 0;
  while (length < a.length && a[length] === b[length]) length++;
  return length;
}
