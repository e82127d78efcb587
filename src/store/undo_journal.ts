/**
 * The undo journal: what skiff is about to do, written before it does it,
 * so that `skiff undo` after a run killed at any point knows what the prompt
 * changed. A file write files the state it is about to leave the file in
 * (its content hash, or "absent"): undo takes that state for skiff's own,
 * not for a change made since. A command files the workspace survey taken
 * before it runs (src/undo/command_snapshots.ts) and is completed once its
 * changes are snapshots; one never completed was killed while it ran, and
 * undo surveys what it changed then. Rows go with the prompt's snapshots
 * when it is undone.
 */
import type { Statements } from "./_rows.ts";

/** The survey a command's changes are measured from: its workspace's tree before it ran. */
export interface CommandSurvey {
  workspace: string;
  dataDir: string;
  /** The git tree of the workspace before the command. */
  tree: string;
  /** Paths the session was limited to (a batch task's); empty: all of the workspace. */
  owns: string[];
}

/** A command of a prompt that never completed. */
export interface PendingCommand {
  id: number;
  survey: CommandSurvey;
  /** When it began (epoch ms). */
  createdAt: number;
}

export class UndoJournal {
  constructor(private readonly sql: Statements, private readonly now: () => number) {}

  /** skiff is about to leave `path` as `state` (a content hash, or "absent"). */
  expect(sessionId: string, prompt: number, path: string, state: string): void {
    this.sql.run(
      `INSERT INTO undo_journal (session_id, prompt, kind, path, state, completed, created_at)
       VALUES (?, ?, 'write', ?, ?, 1, ?)`,
      sessionId,
      prompt,
      path,
      state,
      this.now(),
    );
  }

  /** Every state skiff was about to leave each path of the prompt in. */
  expectedStates(sessionId: string, prompt: number): Map<string, string[]> {
    const states = new Map<string, string[]>();
    for (
      const row of this.sql.all(
        "SELECT path, state FROM undo_journal WHERE session_id = ? AND prompt = ? AND kind = 'write'",
        sessionId,
        prompt,
      )
    ) {
      const path = row.path as string;
      states.set(path, [...states.get(path) ?? [], row.state as string]);
    }
    return states;
  }

  /** A command is about to run; returns the row to complete once its changes are filed. */
  beginCommand(sessionId: string, prompt: number, survey: CommandSurvey): number {
    return Number(
      this.sql.run(
        `INSERT INTO undo_journal (session_id, prompt, kind, path, state, completed, created_at)
         VALUES (?, ?, 'command', NULL, ?, 0, ?)`,
        sessionId,
        prompt,
        JSON.stringify(survey),
        this.now(),
      ).lastInsertRowid,
    );
  }

  /** The command's changes are filed (or it changed nothing). */
  complete(id: number): void {
    this.sql.run("UPDATE undo_journal SET completed = 1 WHERE id = ?", id);
  }

  /** The prompt's commands that began and never completed: killed while they ran. */
  pendingCommands(sessionId: string, prompt: number): PendingCommand[] {
    return this.sql.all(
      `SELECT id, state, created_at FROM undo_journal
       WHERE session_id = ? AND prompt = ? AND kind = 'command' AND completed = 0 ORDER BY id`,
      sessionId,
      prompt,
    ).map((row) => ({
      id: row.id as number,
      survey: JSON.parse(row.state as string),
      createdAt: row.created_at as number,
    }));
  }

  /** The prompts of sessions in `workspace` with a command that began and never completed. */
  promptsWithPendingCommands(workspace: string): { sessionId: string; prompt: number }[] {
    return this.sql.all(
      `SELECT DISTINCT journal.session_id AS session_id, journal.prompt AS prompt
       FROM undo_journal journal JOIN sessions ses ON ses.id = journal.session_id
       WHERE ses.workspace = ? AND journal.kind = 'command' AND journal.completed = 0`,
      workspace,
    ).map((row) => ({ sessionId: row.session_id as string, prompt: row.prompt as number }));
  }

  /**
   * The prompt recorded the state it left `paths` in (its after-state wins
   * over the journal): their write rows, and its completed commands, are
   * needed no more. A command still running (in the background) stays.
   */
  settle(sessionId: string, prompt: number, paths: readonly string[]): void {
    for (const path of paths) {
      this.sql.run(
        `DELETE FROM undo_journal
         WHERE session_id = ? AND prompt = ? AND kind = 'write' AND path = ?`,
        sessionId,
        prompt,
        path,
      );
    }
    this.sql.run(
      `DELETE FROM undo_journal
       WHERE session_id = ? AND prompt = ? AND kind = 'command' AND completed = 1`,
      sessionId,
      prompt,
    );
  }

  /** Forget one prompt's rows (after its undo). */
  forget(sessionId: string, prompt: number): void {
    this.sql.run("DELETE FROM undo_journal WHERE session_id = ? AND prompt = ?", sessionId, prompt);
  }

  /**
   * The folders skiff wrote in (or will put back) for sessions in
   * `workspace`: where its leftover temporary files can be.
   */
  foldersWritten(workspace: string): string[] {
    return this.sql.all(
      `SELECT DISTINCT path FROM (
         SELECT journal.path AS path FROM undo_journal journal
         JOIN sessions ses ON ses.id = journal.session_id
         WHERE ses.workspace = ? AND journal.path IS NOT NULL
         UNION
         SELECT snap.path AS path FROM snapshots snap
         JOIN sessions ses ON ses.id = snap.session_id WHERE ses.workspace = ?)`,
      workspace,
      workspace,
    ).map((row) => {
      const path = row.path as string;
      return path.slice(0, Math.max(path.lastIndexOf("/"), 1));
    }).filter((folder, index, all) => all.indexOf(folder) === index);
  }
}
