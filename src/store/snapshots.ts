/**
 * Undo snapshots: what a file was before a prompt first changed it (its
 * bytes and mode, or absent), and the state the prompt left it in. Undo puts
 * back the first only while the file still shows the second, so it never
 * destroys work skiff did not make — and undoing prompt after prompt works,
 * since each prompt's "after" is the next one's "before".
 */
import { hashContent, type SnapshotSink } from "../contracts/snapshot_sink.ts";
import type { Statements } from "./_rows.ts";
import type { Snapshot } from "./types.ts";

/** The "after" of a file the prompt left absent (deleted, or never created). */
export const ABSENT = "absent";

export class SnapshotTable {
  constructor(private readonly sql: Statements, private readonly now: () => number) {}

  /**
   * Keep what `path` was before user prompt number `prompt` first changed it
   * (null: it did not exist). Only the first snapshot per (session, prompt,
   * path) is kept: later ones in the same prompt are ignored, so undo restores
   * the state before the prompt.
   */
  save(
    sessionId: string,
    prompt: number,
    path: string,
    content: Uint8Array | null,
    mode: number | null = null,
    /** When the change was made, if not now (a killed command's, filed later). */
    createdAt: number = this.now(),
  ): void {
    this.sql.run(
      `INSERT INTO snapshots (session_id, prompt, path, content, existed, hash, mode, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, prompt, path) DO NOTHING`,
      sessionId,
      prompt,
      path,
      content,
      content === null ? 0 : 1,
      content === null ? null : hashContent(content),
      mode,
      createdAt,
    );
  }

  /** A `SnapshotSink` for the file ledger, writing into this session. */
  sink(sessionId: string): SnapshotSink {
    return { save: (prompt, path, before) => this.save(sessionId, prompt, path, before) };
  }

  /** What the prompt left the file as: a content hash, or ABSENT. */
  recordAfter(sessionId: string, prompt: number, path: string, after: string): void {
    this.sql.run(
      "UPDATE snapshots SET after_hash = ? WHERE session_id = ? AND prompt = ? AND path = ?",
      after,
      sessionId,
      prompt,
      path,
    );
  }

  /**
   * The top-level session in `workspace` whose snapshots were taken last:
   * the one `skiff undo` means, even when a later session (a `skiff tool
   * read`) changed nothing. Null when no session there changed a file.
   */
  latestChangedSession(workspace: string): string | null {
    const row = this.sql.get(
      `SELECT snap.session_id AS id FROM snapshots snap
       JOIN sessions ses ON ses.id = snap.session_id
       WHERE ses.workspace = ? AND ses.parent_id IS NULL
       ORDER BY snap.created_at DESC, snap.rowid DESC LIMIT 1`,
      workspace,
    );
    return (row?.id as string | undefined) ?? null;
  }

  /** The latest prompt with snapshots, or null when there is nothing to undo. */
  lastPrompt(sessionId: string): number | null {
    const row = this.sql.get(
      "SELECT MAX(prompt) AS prompt FROM snapshots WHERE session_id = ?",
      sessionId,
    );
    return (row?.prompt as number | null) ?? null;
  }

  /** The files one prompt changed, in the order they were first snapshotted (no contents read). */
  pathsOfPrompt(sessionId: string, prompt: number): string[] {
    return this.sql.all(
      "SELECT path FROM snapshots WHERE session_id = ? AND prompt = ? ORDER BY rowid",
      sessionId,
      prompt,
    ).map((row) => row.path as string);
  }

  /** The snapshots of one prompt, in the order they were taken. */
  forPrompt(sessionId: string, prompt: number): Snapshot[] {
    return this.sql.all(
      `SELECT path, content, existed, hash, after_hash, mode, created_at FROM snapshots
       WHERE session_id = ? AND prompt = ? ORDER BY rowid`,
      sessionId,
      prompt,
    ).map((row) => ({
      path: row.path as string,
      content: (row.content as Uint8Array | null) ?? null,
      existed: row.existed === 1,
      hash: (row.hash as string | null) ?? null,
      after_hash: (row.after_hash as string | null) ?? null,
      mode: (row.mode as number | null) ?? null,
      created_at: row.created_at as number,
    }));
  }

  /**
   * Prompt `prompt` is attempt `cycle` of a gated run (`--until`): its
   * cycle 1 is prompt `prompt - cycle + 1`. Plain undo takes the whole run back.
   */
  markCycle(sessionId: string, prompt: number, cycle: number): void {
    this.sql.run(
      `INSERT INTO prompt_cycles (session_id, prompt, cycle) VALUES (?, ?, ?)
       ON CONFLICT (session_id, prompt) DO UPDATE SET cycle = excluded.cycle`,
      sessionId,
      prompt,
      cycle,
    );
  }

  /** Which attempt of a gated run `prompt` was; null for a prompt without a gate. */
  cycleOf(sessionId: string, prompt: number): number | null {
    const row = this.sql.get(
      "SELECT cycle FROM prompt_cycles WHERE session_id = ? AND prompt = ?",
      sessionId,
      prompt,
    );
    return (row?.cycle as number | undefined) ?? null;
  }

  /** Forget one prompt's snapshots (after an undo); returns how many were removed. */
  delete(sessionId: string, prompt: number): number {
    return Number(
      this.sql.run("DELETE FROM snapshots WHERE session_id = ? AND prompt = ?", sessionId, prompt)
        .changes,
    );
  }
}
