/**
 * Harness memory: work-state that outlives a session, kept per place: the
 * git repository the workspace is in, or the workspace folder outside git,
 * each known by an id of that very repository or folder (`repository`), not
 * by its path, so a different repository cloned to the same path later does
 * not inherit it. Two kinds of rows:
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

/**
 * Where memory is kept: `root` is the folder its file paths are relative to
 * (the repository's root, or the workspace), `repository` the id rows are
 * kept under (src/tools/session/harness_scope.ts `memoryPlace`). `bornAt`,
 * when known, is when that repository or folder was made: a row from before
 * repository ids (schema 11) written at `root` after that moment belongs to
 * it; other such rows are not given to sessions (`legacyMemories`).
 */
export interface MemoryPlace {
  root: string;
  repository: string;
  bornAt?: number | null;
}

/** A plain string is a place whose root and id are that string (tests, tools of one folder). */
export type MemoryWhere = MemoryPlace | string;

function placeOf(where: MemoryWhere): MemoryPlace {
  return typeof where === "string" ? { root: where, repository: where } : where;
}

/** Rows of `place`: its own, and rows from before ids written at its root since it was made. */
function placeClause(where: MemoryWhere, params: SQLInputValue[]): string {
  const place = placeOf(where);
  params.push(place.repository, place.root, place.bornAt ?? Number.MAX_SAFE_INTEGER);
  return "(repository = ? OR (repository IS NULL AND scope = ? AND created_at >= ?))";
}

/** Something learned, as stored. */
export interface MemoryEntry {
  id: number;
  scope: string;
  /** The repository's (or folder's) id; null for a row from before ids. */
  repository: string | null;
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
  /** The repository's (or folder's) id; null for a row from before ids. */
  repository: string | null;
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
    repository: row.repository === null || row.repository === undefined
      ? null
      : String(row.repository),
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
    repository: text(row.repository),
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
   * Store what was learned. The same kind and subject in the same place is
   * one entry: remembering it again replaces its body and files and moves it
   * to the front (a row from before ids that the place shows is replaced too).
   */
  remember(where: MemoryWhere, entry: NewMemory): MemoryEntry {
    const place = placeOf(where);
    const at = this.now();
    this.sql.run(
      `DELETE FROM memories WHERE repository IS NULL AND scope = ? AND kind = ? AND subject = ?
         AND created_at >= ?`,
      place.root,
      entry.kind,
      entry.subject,
      place.bornAt ?? Number.MAX_SAFE_INTEGER,
    );
    this.sql.run(
      `INSERT INTO memories (scope, repository, kind, subject, body, commit_sha, files, created_at,
         updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (repository, kind, subject) DO UPDATE SET scope = excluded.scope,
         body = excluded.body, commit_sha = excluded.commit_sha, files = excluded.files,
         updated_at = excluded.updated_at`,
      place.root,
      place.repository,
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
        "SELECT * FROM memories WHERE repository = ? AND kind = ? AND subject = ?",
        place.repository,
        entry.kind,
        entry.subject,
      )!,
    );
  }

  /** Entries, newest first; every place's when `where` is undefined. @default limit 200 */
  memories(where?: MemoryWhere, limit = 200): MemoryEntry[] {
    const params: SQLInputValue[] = [];
    const clause = where === undefined ? "" : `WHERE ${placeClause(where, params)}`;
    params.push(Math.max(0, Math.trunc(limit)));
    return this.sql.all(
      `SELECT * FROM memories ${clause} ORDER BY updated_at DESC, id DESC LIMIT ?`,
      ...params,
    ).map(toEntry);
  }

  /**
   * Rows from before repository ids, written at `place`'s root but not shown
   * there: the repository now at that path was made after them (or when it
   * was made is unknown), so they may be another repository's.
   */
  legacyMemories(place: MemoryPlace): { memories: MemoryEntry[]; records: HarnessRecord[] } {
    const born = place.bornAt ?? Number.MAX_SAFE_INTEGER;
    const where = "WHERE repository IS NULL AND scope = ? AND created_at < ?";
    return {
      memories: this.sql.all(
        `SELECT * FROM memories ${where} ORDER BY updated_at DESC, id DESC`,
        place.root,
        born,
      ).map(toEntry),
      records: this.sql.all(
        `SELECT * FROM harness_records ${where} ORDER BY created_at DESC, id DESC`,
        place.root,
        born,
      ).map(toRecord),
    };
  }

  memory(id: number): MemoryEntry | undefined {
    const row = this.sql.get("SELECT * FROM memories WHERE id = ?", id);
    return row ? toEntry(row) : undefined;
  }

  deleteMemory(id: number): boolean {
    return Number(this.sql.run("DELETE FROM memories WHERE id = ?", id).changes) > 0;
  }

  record(where: MemoryWhere, record: NewHarnessRecord): HarnessRecord {
    const place = placeOf(where);
    const at = this.now();
    const importance = Math.min(1, Math.max(0, record.importance ?? DEFAULT_IMPORTANCE));
    this.sql.run(
      `INSERT INTO harness_records (scope, repository, session_id, kind, summary, details,
         source_paths, command, commit_sha, evidence_refs, importance, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      place.root,
      place.repository,
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
   * Records, newest first; every place's when `place` is undefined, only
   * `kinds` when given. @default limit 200
   */
  records(
    place?: MemoryWhere,
    options: { kinds?: HarnessKind[]; limit?: number } = {},
  ): HarnessRecord[] {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (place !== undefined) where.push(placeClause(place, params));
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
