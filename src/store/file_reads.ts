/**
 * The read-before-edit ledger as stored: a row per file the model has seen
 * in a session, with the content hash it saw. Saving writes only what
 * differs from the stored ledger, and the stored ledger is read again only
 * when another connection has committed since this one last read or wrote
 * it (`PRAGMA data_version` changes for no other reason), so a `skiff tool`
 * process saving after every call reads nothing per call.
 */
import type { Statements } from "./_rows.ts";

export class FileReads {
  /** Each session's ledger as this connection last read or wrote it, and the data_version then. */
  readonly #known = new Map<string, { version: number; reads: Map<string, string> }>();

  constructor(
    private readonly sql: Statements,
    private readonly requireSession: (sessionId: string) => void,
  ) {}

  /** Path → content hash, in the order first seen. Throws StoreError for no such session. */
  get(id: string): [string, string][] {
    this.requireSession(id);
    return this.sql.all(
      "SELECT path, hash FROM file_reads WHERE session_id = ? ORDER BY rowid",
      id,
    )
      .map((row) => [row.path as string, row.hash as string]);
  }

  /** The ledger becomes `entries`: a row written per file that changed, one deleted per file gone. */
  save(id: string, entries: [string, string][]): void {
    const version = this.#dataVersion();
    const known = this.#known.get(id);
    const stored = known?.version === version ? known.reads : new Map(this.get(id));
    const wanted = new Map(entries);
    const changed = entries.filter(([path, hash]) => stored.get(path) !== hash);
    const gone = [...stored.keys()].filter((path) => !wanted.has(path));
    if (changed.length === 0 && gone.length === 0) {
      this.#known.set(id, { version, reads: stored });
      return;
    }
    this.#known.delete(id);
    this.sql.transaction(() => {
      for (const [path, hash] of changed) {
        this.sql.run(
          `INSERT INTO file_reads (session_id, path, hash) VALUES (?, ?, ?)
           ON CONFLICT (session_id, path) DO UPDATE SET hash = excluded.hash`,
          id,
          path,
          hash,
        );
      }
      for (const path of gone) {
        this.sql.run("DELETE FROM file_reads WHERE session_id = ? AND path = ?", id, path);
      }
    });
    // This connection's own commit leaves data_version as it was.
    this.#known.set(id, { version, reads: wanted });
  }

  /** Sessions were deleted: what was known of any is void. */
  forget(): void {
    this.#known.clear();
  }

  #dataVersion(): number {
    return this.sql.get("PRAGMA data_version")!.data_version as number;
  }
}
