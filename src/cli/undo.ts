/**
 * `skiff undo`: put back what the last prompt of a session changed. A
 * `--until` run's cycles are prompts in a row: plain undo takes back the
 * whole run, `--cycle` only its last attempt.
 */
import * as path from "../lib/path.ts";
import { resolveWorkspace } from "../host/setup.ts";
import { ConfinedWriterClient, startConfinedWriter } from "../sandbox/writer/confined_writer.ts";
import { undoSnapshots } from "../undo/undo.ts";
import { settleKilledRuns, type UnsurveyedCommand } from "../undo/killed_commands.ts";
import type { Session, Store } from "../store/store.ts";
import { noSuchSession, withStore } from "./store_access.ts";
import { neutraliseControls } from "../ui/safe_text.ts";
import { ExitCode } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";

export interface UndoCommandOptions {
  session?: string;
  /** Every task session of this `skiff batch` (src/cli/batch/batch.ts). */
  batch?: string;
  /** Only the last cycle of a `--until` run (docs/verification.md). */
  cycle?: boolean;
  dir?: string;
  /** Folders besides the session's workspace that undo may write in. */
  addDir?: string[];
  /** Told how many files each undone prompt put back (the chat tells the model only then). */
  counted?: (putBack: number) => void;
}

/** Where undo's lines go: stdout and stderr, or (a batch) stderr alone. */
export interface UndoPrinter {
  log(line: string): void;
  error(line: string): void;
}

const CONSOLE: UndoPrinter = {
  log: (line) => console.log(line),
  error: (line) => console.error(line),
};

export async function undoCommand(options: UndoCommandOptions): Promise<number> {
  try {
    return await undo(options);
  } catch (error) {
    return reportFatal(error);
  }
}

async function undo(options: UndoCommandOptions): Promise<number> {
  if (options.batch) return await undoBatch(options.batch, options);
  return await withStore((store) => undoSession(store, options));
}

/**
 * Undoes the last prompt of `--session` (a `--until` run's cycles together),
 * or of the latest session here with file changes left; resolves to the exit
 * code (1 when a file was refused).
 */
export async function undoSession(
  store: Store,
  options: UndoCommandOptions,
  print: UndoPrinter = CONSOLE,
): Promise<number> {
  const workspace = resolveWorkspace(options.dir);
  const settled = await settle(store, workspace, print);
  // Without --session: the latest prompt that changed files, not merely the
  // latest session (a `skiff tool read` since changed nothing).
  const latest = options.session ? null : store.snapshots.latestChangedSession(workspace);
  if (!options.session && latest === null) {
    const any = store.latestSession(workspace);
    if (!any) {
      print.error(`skiff: no session in ${workspace} to undo.`);
      return ExitCode.usage;
    }
    print.log(`Nothing to undo in ${workspace}: no session there has file changes left.`);
    return ExitCode.ok;
  }
  const id = options.session ?? latest!;
  const session = store.getSession(id);
  if (!session) {
    print.error(`skiff: ${noSuchSession(id)}`);
    return ExitCode.usage;
  }
  if (session.workspace !== workspace) {
    settled.unsurveyed.push(...(await settle(store, session.workspace, print)).unsurveyed);
  }
  const prompt = store.snapshots.lastPrompt(session.id);
  if (prompt === null) {
    print.log(`Nothing to undo in ${session.id}: no file changes are recorded.`);
    return ExitCode.ok;
  }
  const cycle = store.snapshots.cycleOf(session.id, prompt);
  if (options.cycle && cycle === null) {
    print.error(
      `skiff: the last change of ${session.id} (prompt ${prompt}) was not a cycle of a --until ` +
        "or --done run; undo it with: skiff undo",
    );
    return ExitCode.usage;
  }
  // A gated run's cycles are prompts in a row: plain undo takes the whole run back.
  const prompts = options.cycle || cycle === null
    ? [prompt]
    : Array.from({ length: cycle }, (_, index) => prompt - index);
  let refused = 0;
  for (const number of prompts) {
    const label = cycle === null
      ? `prompt ${number}`
      : `cycle ${cycle - (prompt - number)} (prompt ${number})`;
    const unsurveyed = settled.unsurveyed.filter((command) =>
      command.sessionId === session.id && command.prompt === number
    );
    const outcome = await undoPrompt(
      store,
      session,
      number,
      label,
      options.addDir ?? [],
      unsurveyed,
      print,
    );
    refused += outcome.refused;
    options.counted?.(outcome.putBack);
  }
  return refused ? ExitCode.failed : ExitCode.ok;
}

/** Puts back one prompt's changes and says what it did: how many files it put back and refused. */
async function undoPrompt(
  store: Store,
  session: Session,
  prompt: number,
  label: string,
  addDirs: string[],
  unsurveyed: UnsurveyedCommand[],
  print: UndoPrinter,
): Promise<{ putBack: number; refused: number }> {
  const snapshots = store.snapshots.forPrompt(session.id, prompt);
  // Subagents file their snapshots under the prompt that started them, and
  // keep their own record of what they wrote: undo knows both.
  const family = [session, ...descendants(store, session.id)];
  const reads = new Map(family.map(({ id }) => [id, new Map(store.getFileReads(id))]));
  const known = new Map<string, string[]>();
  for (const sessionReads of reads.values()) {
    for (const [path, hash] of sessionReads) known.set(path, [...known.get(path) ?? [], hash]);
  }
  // What skiff was about to leave each file as: its own state, for a prompt killed before it ended.
  for (const [path, states] of store.undoJournal.expectedStates(session.id, prompt)) {
    known.set(path, [...known.get(path) ?? [], ...states]);
  }
  const roots = [session.workspace, ...addDirs.map((dir) => path.resolve(dir))];
  const report = await restore(
    roots,
    (writes) => undoSnapshots(snapshots, known, { roots, writes }),
  );
  // Put back: the model must read it again before changing it.
  for (const [id, sessionReads] of reads) {
    for (const path of [...report.restored, ...report.removed]) sessionReads.delete(path);
    store.saveFileReads(id, [...sessionReads.entries()]);
  }
  for (const command of unsurveyed) {
    report.refused.push({ path: session.workspace, reason: command.reason });
  }
  store.snapshots.delete(session.id, prompt);
  store.undoJournal.forget(session.id, prompt);

  // File names were chosen by the model: shown, not obeyed.
  const shown = neutraliseControls;
  for (const path of report.restored) print.log(`restored ${shown(path)}`);
  for (const path of report.removed) print.log(`removed  ${shown(path)} (skiff created it)`);
  for (const refusal of report.refused) {
    print.error(`refused  ${shown(refusal.path)}: ${shown(refusal.reason)}`);
  }
  const putBack = report.restored.length + report.removed.length;
  if (putBack === 0 && report.refused.length === 0) {
    // Exit 0 all the same: the files are as they were before the prompt, which is what undo is for.
    print.log(
      `Nothing to undo in ${label} of ${session.id}: ${
        report.unchanged.length
          ? `its ${report.unchanged.length} file(s) are already as they were before it`
          : "it left no file changed"
      }.`,
    );
    return { putBack, refused: 0 };
  }
  const unchanged = report.unchanged.length
    ? `, ${report.unchanged.length} already as they were`
    : "";
  print.log(
    `Undid ${label} of ${session.id}: ${putBack} file(s) put back${unchanged}, ` +
      `${report.refused.length} refused.`,
  );
  return { putBack, refused: report.refused.length };
}

/** Finishes what killed runs left in `workspace` (killed_commands.ts) and names the temp files swept. */
async function settle(store: Store, workspace: string, print: UndoPrinter) {
  const settled = await settleKilledRuns(store, workspace);
  for (const file of settled.swept) {
    print.log(`removed  ${neutraliseControls(file)} (a temporary file of a killed write)`);
  }
  return settled;
}

/**
 * Run `work` with writes that go through the confined writer (the kernel
 * keeps them inside `roots` where Landlock exists), or on this thread when
 * the writer cannot start.
 */
async function restore<T>(
  roots: string[],
  work: (writes?: ConfinedWriterClient) => Promise<T>,
): Promise<T> {
  let writer;
  try {
    writer = startConfinedWriter(roots);
  } catch {
    return await work();
  }
  const client = new ConfinedWriterClient(writer.link);
  try {
    return await work(client);
  } finally {
    client.close();
    writer.close();
  }
}

/** The subagent sessions below `id`, at every depth. */
function descendants(store: Store, id: string): Session[] {
  return store.childSessions(id).flatMap((child) => [child, ...descendants(store, child.id)]);
}

/**
 * `--batch`: every session of every task put back, one after another as
 * `--session` would, the newest first: a task stopped by Ctrl-C and run again
 * by `--resume` has its later session's changes undone before its earlier
 * one's, so each file steps back to where it was before the batch. A file
 * changed since is refused and named by each session that changed it.
 */
async function undoBatch(batch: string, options: UndoCommandOptions): Promise<number> {
  type Found =
    | { count: number }
    | { batchId: string; sessions: { dir: string; id: string; task: string }[] };
  const found = withStore((store): Found => {
    const ids = store.batches.find(batch);
    if (ids.length !== 1) return { count: ids.length };
    const sessions = store.batches.sessions(ids[0]).flatMap((run) => {
      const session = store.getSession(run.sessionId);
      return session ? [{ dir: session.workspace, id: session.id, task: run.taskId }] : [];
    });
    return { batchId: ids[0], sessions };
  });
  if (!("batchId" in found)) {
    console.error(
      found.count
        ? `skiff: "${batch}" names ${found.count} batches; give more of the id.`
        : `skiff: no batch "${batch}". Batch ids are printed by skiff batch.`,
    );
    return ExitCode.usage;
  }
  const { batchId, sessions } = found;
  let code: number = ExitCode.ok;
  let incomplete = 0;
  for (const session of sessions) {
    const result = await undo({
      ...options,
      batch: undefined,
      session: session.id,
      dir: session.dir,
    });
    if (result !== ExitCode.ok) [code, incomplete] = [result, incomplete + 1];
  }
  const tasks = new Set(sessions.map((session) => session.task)).size;
  console.log(
    `Undid batch ${batchId}: ${sessions.length} session(s) of ${tasks} task(s)` +
      (incomplete ? `; ${incomplete} session(s) not wholly put back (see above).` : "."),
  );
  return code;
}
