/**
 * Before `--resume` runs a task again that was stopped part-way (Ctrl-C,
 * `kill -9`, a lost machine), what its stopped run changed is put back, as
 * `skiff undo --session` would: the task then starts afresh from the files as
 * they were, so an edit it had already made is never applied a second time.
 * A run that cannot be wholly put back (a file changed since) is not run
 * again; the task fails and names what is left.
 */
import type { Store } from "../../store/store.ts";
import { undoSession } from "../undo.ts";
import { ExitCode } from "../exit_codes.ts";

export type PutBack = { ok: true; lines: string[] } | {
  ok: false;
  lines: string[];
  detail: string;
};

/**
 * Undo the last run of `sessionId` (a `--until` run's cycles together) in
 * `workspace`; `addDirs` are the batch's `--add-dir` folders. Returns the
 * lines undo printed, for the batch to show as one block.
 */
export async function putBackStoppedRun(
  store: Store,
  sessionId: string,
  workspace: string,
  addDirs: string[],
): Promise<PutBack> {
  const lines: string[] = [];
  const code = await undoSession(
    store,
    { session: sessionId, dir: workspace, addDir: addDirs },
    { log: (line) => lines.push(line), error: (line) => lines.push(line) },
  );
  if (code === ExitCode.ok) return { ok: true, lines };
  const refused = lines.filter((line) => line.startsWith("refused")).length;
  const why = refused
    ? `${refused} file(s) its stopped run ${sessionId} changed were changed since and are left ` +
      `as they are (named above)`
    // Its session is gone (`skiff sessions rm`), so what it changed is no longer known.
    : `what its stopped run ${sessionId} changed could not be put back (${lines.at(-1) ?? ""})`;
  return {
    ok: false,
    lines,
    detail: `not run again, so nothing is applied twice: ${why}; see what it did: ` +
      `skiff sessions show ${sessionId}`,
  };
}
