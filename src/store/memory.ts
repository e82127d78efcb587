/**
 * Harness memory: work-state that outlives a session, kept per scope (the git
 * repository's root, or the workspace outside git). Two kinds of rows:
 * remembered entries (`remember`: a convention, a command that works, a trap,
 * with the commit and the files it names, so it can be shown stale later) and
 * harness records (decisions, handoffs, verifications… the trail the next
 * session's `harness_status` reads). Both are the user's data: `skiff memory`
 * lists, shows, deletes and exports them.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Statements } from "./_rows.ts";

export const HARNESS_KINDS = [
  "decision",
  "handoff",
  "failed_attempt",
  "bug_reproduction",
  "verification_result",
  "risk",
  "assumption",
  "issue_update",
] as const;

export type HarnessKind = typeof HARNESS_KINDS[number];

/** Something learned, as stored. */
export interface MemoryEntry {
  id: number;
  scope: string;
  kind: string;
  subject: string;
  body: string;
  /** The commit checked out when it was learned; null outside git. */
  commit: string | null;
  /** Files the entry names (scope-relative), whose change makes it stale. */
  files: string[];
  created: number;
  updated: number;
}

export interface NewMemory {
  kind: string;
  subject: string;
  body: string;
  commit?: string | null;
  files?: string[];
}

/** One harness record, as stored. */
export interface HarnessRecord {
  id: number;
  scope: string;
  sessionId: string | null;
  kind: HarnessKind;
  summary: string;
  details: string | null;
  sourcePaths: string[];
  command: string | null;
  commitSha: string | null;
  evidenceRefs: string[];
  /** 0 to 1. */
  importance: number;
  created: number;
}

export interface NewHarnessRecord {
  kind: HarnessKind;
  summary: string;
  details?: string | null;
  sourcePaths?: string[];
  command?: string | null;
  commitSha?: string | null;
  evidenceRefs?: string[];
  importance?: number;
  sessionId?: string | null;
}

export const DEFAULT_IMPORTANCE = 0.7;

function jsonList(value: unknown): string[] {
  try {
    const parsed = JSON.parse(String(value ?? "[]"));
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function toEntry(row: Record<string, unknown>): MemoryEntry {
  return {
    id: Number(row.id),
    scope: String(row.scope),
    kind: String(row.kind),
    subject: String(row.subject),
    body: String(row.body),
    commit: row.commit_sha === null ? null : String(row.commit_sha),
    files: jsonList(row.files),
    created: Number(row.created_at),
    updated: Number(row.updated_at),
  };
}

function toRecord(row: Record<string, unknown>): HarnessRecord {
  const text = (value: unknown) => value === null || value === undefined ? null : String(value);
  return {
    id: Number(row.id),
    scope: String(row.scope),
    sessionId: text(row.session_id),
    kind: String(row.kind) as HarnessKind,
    summary: String(row.summary),
    details: text(row.details),
    sourcePaths: jsonList(row.source_paths),
    command: text(row.command),
    commitSha: text(row.commit_sha),
    evidenceRefs: jsonList(row.evidence_refs),
    importance: Number(row.importance),
    created: Number(row.created_at),
  };
}

export class MemoryTable {
  constructor(private readonly sql: Statements, private readonly now: () => number) {}

  /**
   * Store what was learned. The same kind and subject in the same scope is
   * one entry: remembering it again replaces its body and files and moves it
   * to the front.
   */
  remember(scope: string, entry: NewMemory): MemoryEntry {
    const at = this.now();
    this.sql.run(
      `INSERT INTO memories (scope, kind, subject, body, commit_sha, files, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, kind, subject) DO UPDATE SET body = excluded.body,
         commit_sha = excluded.commit_sha, files = excluded.files, updated_at = excluded.updated_at`,
      scope,
      entry.kind,
      entry.subject,
      entry.body,
      entry.commit ?? null,
      JSON.stringify(entry.files ?? []),
      at,
      at,
    );
    return toEntry(
      this.sql.get(
        "SELECT * FROM memories WHERE scope = ? AND kind = ? AND subject = ?",
        scope,
        entry.kind,
        entry.subject,
      )!,
    );
  }

  /** Entries, newest first; all scopes when `scope` is undefined. @default limit 200 */
  memories(scope?: string, limit = 200): MemoryEntry[] {
    const params: SQLInputValue[] = [];
    let where = "";
    if (scope !== undefined) {
      where = "WHERE scope = ?";
      params.push(scope);
    }
    params.push(Math.max(0, Math.trunc(limit)));
    return this.sql.all(
      `SELECT * FROM memories ${where} ORDER BY updated_at DESC, id DESC LIMIT ?`,
      ...params,
    ).map(toEntry);
  }

  memory(id: number): MemoryEntry | undefined {
    const row = this.sql.get("SELECT * FROM memories WHERE id = ?", id);
    return row ? toEntry(row) : undefined;
  }

  deleteMemory(id: number): boolean {
    return Number(this.sql.run("DELETE FROM memories WHERE id = ?", id).changes) > 0;
  }

  record(scope: string, record: NewHarnessRecord): HarnessRecord {
    const at = this.now();
    const importance = Math.min(1, Math.max(0, record.importance ?? DEFAULT_IMPORTANCE));
    this.sql.run(
      `INSERT INTO harness_records (scope, session_id, kind, summary, details, source_paths,
         command, commit_sha, evidence_refs, importance, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      scope,
      record.sessionId ?? null,
      record.kind,
      record.summary,
      record.details ?? null,
      JSON.stringify(record.sourcePaths ?? []),
      record.command ?? null,
      record.commitSha ?? null,
      JSON.stringify(record.evidenceRefs ?? []),
      importance,
      at,
    );
    const row = this.sql.get("SELECT * FROM harness_records WHERE rowid = last_insert_rowid()");
    return toRecord(row!);
  }

  /**
   * Records, newest first; all scopes when `scope` is undefined, only
   * `kinds` when given. @default limit 200
   */
  records(
    scope?: string,
    options: { kinds?: HarnessKind[]; limit?: number } = {},
  ): HarnessRecord[] {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (scope !== undefined) {
      where.push("scope = ?");
      params.push(scope);
    }
    if (options.kinds?.length) {
      where.push(`kind IN (${options.kinds.map(() => "?").join(", ")})`);
      params.push(...options.kinds);
    }
    params.push(Math.max(0, Math.trunc(options.limit ?? 200)));
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    return this.sql.all(
      `SELECT * FROM harness_records ${clause} ORDER BY created_at DESC, id DESC LIMIT ?`,
      ...params,
    ).map(toRecord);
  }

  harnessRecord(id: number): HarnessRecord | undefined {
    const row = this.sql.get("SELECT * FROM harness_records WHERE id = ?", id);
    return row ? toRecord(row) : undefined;
  }

  deleteRecord(id: number): boolean {
    return Number(this.sql.run("DELETE FROM harness_records WHERE id = ?", id).changes) > 0;
  }
}
