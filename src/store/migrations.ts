/**
 * The database schema, as an ordered list of forward migrations. The schema
 * version lives in `PRAGMA user_version`; opening a database runs every
 * migration above it, each in one transaction, so a database is never left
 * half-upgraded. Append new migrations; never edit a released one.
 */
import type { DatabaseSync } from "node:sqlite";
import { StoreError } from "./errors.ts";

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "sessions, messages, parts, events, snapshots",
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        workspace TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        model TEXT NOT NULL,
        agent TEXT NOT NULL,
        parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'running',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        total_tokens INTEGER NOT NULL DEFAULT 0,
        turns INTEGER NOT NULL DEFAULT 0,
        todos TEXT NOT NULL DEFAULT '[]',
        file_reads TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX sessions_by_workspace ON sessions(workspace, updated_at);
      CREATE INDEX sessions_by_parent ON sessions(parent_id);

      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, seq)
      );

      CREATE TABLE parts (
        id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (message_id, seq)
      );
      CREATE INDEX parts_by_session ON parts(session_id);

      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
      );

      CREATE TABLE snapshots (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        turn INTEGER NOT NULL,
        path TEXT NOT NULL,
        content BLOB,
        existed INTEGER NOT NULL,
        hash TEXT,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, turn, path)
      );
    `,
  },
  {
    version: 2,
    description: "undo: the state a prompt left each file in, and the mode it had before",
    sql: `
      ALTER TABLE snapshots ADD COLUMN after_hash TEXT;
      ALTER TABLE snapshots ADD COLUMN mode INTEGER;
    `,
  },
  {
    version: 3,
    description: "which run writes a session (src/store/session_locks.ts)",
    sql: `
      CREATE TABLE session_locks (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        run_id TEXT NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        pid_started TEXT,
        acquired_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL
      );
      CREATE INDEX session_locks_by_run ON session_locks(run_id);
    `,
  },
  {
    version: 4,
    description: "undo snapshots are filed by user prompt: the column says so",
    // "turn" means a model step in events; the UNIQUE (session_id, turn, path)
    // constraint follows the rename (SQLite 3.25 and later).
    sql: `ALTER TABLE snapshots RENAME COLUMN turn TO prompt;`,
  },
  {
    version: 5,
    description: "usage: one row per model request, with its cost when the price was known",
    // parent_id is the session's parent at the time (a subagent's), so a
    // session's totals can include its subagents' without walking sessions.
    // Sessions from before keep their totals as one row each, priced unknown.
    sql: `
      CREATE TABLE usage (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        parent_id TEXT,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cached_input_tokens INTEGER,
        cost_usd REAL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX usage_by_session ON usage(session_id);
      CREATE INDEX usage_by_time ON usage(created_at);
      INSERT INTO usage (session_id, parent_id, model, input_tokens, output_tokens, created_at)
        SELECT id, parent_id, model, input_tokens, output_tokens, updated_at
        FROM sessions WHERE input_tokens > 0 OR output_tokens > 0;
    `,
  },
  {
    version: 6,
    description: "file_reads: the read ledger one row a file, so a turn writes what changed",
    // The JSON column was rewritten whole after every tool result, growing
    // with the files a session had read; it is left empty from now on.
    sql: `
      CREATE TABLE file_reads (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        hash TEXT NOT NULL,
        UNIQUE (session_id, path)
      );
      INSERT OR REPLACE INTO file_reads (session_id, path, hash)
        SELECT s.id, json_extract(e.value, '$[0]'), json_extract(e.value, '$[1]')
        FROM sessions s, json_each(s.file_reads) e ORDER BY s.id, e.key;
      UPDATE sessions SET file_reads = '[]';
    `,
  },
  {
    version: 7,
    description: "batches and batch_tasks: a `skiff batch` run and each task's session and result",
    sql: `
      CREATE TABLE batches (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        spec TEXT NOT NULL,
        shard TEXT
      );
      CREATE TABLE batch_tasks (
        batch_id TEXT NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        exit_code INTEGER,
        started_at INTEGER,
        ended_at INTEGER,
        detail TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (batch_id, task_id)
      );
    `,
  },
  {
    version: 8,
    description: "prompt_cycles: which prompts are verification cycles of one run (--until)",
    sql: `
      CREATE TABLE prompt_cycles (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        prompt INTEGER NOT NULL,
        cycle INTEGER NOT NULL,
        PRIMARY KEY (session_id, prompt)
      );
    `,
  },
  {
    version: 9,
    description:
      "harness memory: remembered entries and harness records per workspace or repository",
    // scope is the git root, or the workspace outside git; no foreign key to
    // sessions: memory outlives the session that wrote it.
    sql: `
      CREATE TABLE memories (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        commit_sha TEXT,
        files TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (scope, kind, subject)
      );
      CREATE INDEX memories_by_scope ON memories(scope, updated_at);
      CREATE TABLE harness_records (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        session_id TEXT,
        kind TEXT NOT NULL,
        summary TEXT NOT NULL,
        details TEXT,
        source_paths TEXT NOT NULL DEFAULT '[]',
        command TEXT,
        commit_sha TEXT,
        evidence_refs TEXT NOT NULL DEFAULT '[]',
        importance REAL NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX harness_records_by_scope ON harness_records(scope, created_at);
    `,
  },
  {
    version: 10,
    description: "batch_task_sessions: every session a batch task ran, not only its last",
    // `--resume` runs an interrupted task again in a new session; undo --batch
    // needs them all. Batches from before keep the one session they recorded.
    sql: `
      CREATE TABLE batch_task_sessions (
        id INTEGER PRIMARY KEY,
        batch_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        started_at INTEGER NOT NULL,
        UNIQUE (batch_id, session_id),
        FOREIGN KEY (batch_id, task_id) REFERENCES batch_tasks(batch_id, task_id) ON DELETE CASCADE
      );
      INSERT INTO batch_task_sessions (batch_id, task_id, session_id, started_at)
        SELECT batch_id, task_id, session_id, COALESCE(started_at, 0) FROM batch_tasks
        WHERE session_id IS NOT NULL ORDER BY started_at, batch_id, seq;
    `,
  },
  {
    version: 11,
    description:
      "harness memory keyed to the repository (or folder) it was written in, not to its path",
    // A hostile checkout's memory reached a different repository cloned to
    // the same path later. Rows from before have no repository: sessions see
    // them only where the repository at that path is older than the row
    // (src/store/memory.ts); `skiff memory list` shows the others.
    sql: `
      CREATE TABLE memories_keyed (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        repository TEXT,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        commit_sha TEXT,
        files TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (repository, kind, subject)
      );
      INSERT INTO memories_keyed (id, scope, repository, kind, subject, body, commit_sha, files,
          created_at, updated_at)
        SELECT id, scope, NULL, kind, subject, body, commit_sha, files, created_at, updated_at
        FROM memories;
      DROP TABLE memories;
      ALTER TABLE memories_keyed RENAME TO memories;
      CREATE INDEX memories_by_scope ON memories(scope, updated_at);
      CREATE INDEX memories_by_repository ON memories(repository, updated_at);
      ALTER TABLE harness_records ADD COLUMN repository TEXT;
      CREATE INDEX harness_records_by_repository ON harness_records(repository, created_at);
    `,
  },
  {
    version: 12,
    description: "reasoning tokens kept per model request",
    // Rows from before have none recorded (NULL): they count as zero in a
    // sum, as a server that does not report them.
    sql: `ALTER TABLE usage ADD COLUMN reasoning_tokens INTEGER;`,
  },
  {
    version: 13,
    description: "undo journal: each write and command recorded before it acts",
    // A write's row names the state skiff is about to leave the file in; a
    // command's row holds the workspace survey taken before it ran, and is
    // completed once its changes are filed as snapshots (src/store/undo_journal.ts).
    sql: `
      CREATE TABLE undo_journal (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        prompt INTEGER NOT NULL,
        kind TEXT NOT NULL,
        path TEXT,
        state TEXT NOT NULL,
        completed INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX undo_journal_by_prompt ON undo_journal(session_id, prompt);
    `,
  },
];

/** The schema version this build of skiff writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Bring the database up to `SCHEMA_VERSION`. Safe when two processes open
 * the same new file at once: the version is read again inside the write
 * transaction, so only one of them migrates.
 */
export function migrate(db: DatabaseSync, migrations: readonly Migration[] = MIGRATIONS): void {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (userVersion(db) === latest) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    const current = userVersion(db);
    if (current > latest) {
      throw new StoreError(
        `the session database uses schema version ${current}, newer than this skiff knows (${latest}). ` +
          "Upgrade skiff, or set SKIFF_DATA_DIR to another folder.",
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      // PRAGMA takes no bound parameters; the version is our own integer.
      db.exec(`PRAGMA user_version = ${Math.trunc(migration.version)}`);
    }
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

export function userVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return row.user_version;
}
