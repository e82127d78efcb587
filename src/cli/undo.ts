/**
 * `skiff undo`: put back what the last prompt of a session changed.
 */
import { resolveWorkspace } from "../app/setup.ts";
import { undoSnapshots } from "../session/undo.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { openStore, type Session, type Store } from "../store/store.ts";
import { ExitCode } from "./exit_codes.ts";
import { reportFatal } from "./main.ts";

export function undoCommand(options: { session?: string; dir?: string }): Promise<number> {
  try {
    return Promise.resolve(undo(options));
  } catch (error) {
    return Promise.resolve(reportFatal(error));
  }
}

function undo(options: { session?: string; dir?: string }): number {
  const store = openStore(resolveDataDir(Deno.env.toObject()));
  try {
    const workspace = resolveWorkspace(options.dir);
    const session = options.session
      ? store.getSession(options.session)
      : store.latestSession(workspace);
    if (!session) {
      console.error(
        options.session
          ? `skiff: no session "${options.session}". List them with: skiff sessions list --all`
          : `skiff: no session in ${workspace} to undo.`,
      );
      return ExitCode.usage;
    }
    const turn = store.snapshots.lastTurn(session.id);
    if (turn === null) {
      console.log(`Nothing to undo in ${session.id}: no file changes are recorded.`);
      return ExitCode.ok;
    }
    const snapshots = store.snapshots.forTurn(session.id, turn);
    // Subagents file their snapshots under the prompt that started them, and
    // keep their own record of what they wrote: undo knows both.
    const family = [session, ...descendants(store, session.id)];
    const reads = new Map(family.map(({ id }) => [id, new Map(store.getFileReads(id))]));
    const known = new Map<string, string[]>();
    for (const sessionReads of reads.values()) {
      for (const [path, hash] of sessionReads) known.set(path, [...known.get(path) ?? [], hash]);
    }
    const report = undoSnapshots(snapshots, known);
    // Put back: the model must read it again before changing it.
    for (const [id, sessionReads] of reads) {
      for (const path of [...report.restored, ...report.removed]) sessionReads.delete(path);
      store.saveFileReads(id, [...sessionReads.entries()]);
    }
    store.snapshots.delete(session.id, turn);

    for (const path of report.restored) console.log(`restored ${path}`);
    for (const path of report.removed) console.log(`removed  ${path} (skiff created it)`);
    for (const refusal of report.refused) {
      console.error(`refused  ${refusal.path}: ${refusal.reason}`);
    }
    console.log(
      `Undid prompt ${turn} of ${session.id}: ${
        report.restored.length + report.removed.length
      } file(s) put back, ${report.refused.length} refused.`,
    );
    return report.refused.length ? ExitCode.failed : ExitCode.ok;
  } finally {
    store.close();
  }
}

/** The subagent sessions below `id`, at every depth. */
function descendants(store: Store, id: string): Session[] {
  return store.childSessions(id).flatMap((child) => [child, ...descendants(store, child.id)]);
}
