/**
 * The one write path of the file tools: a set of file changes planned in
 * memory (nothing written), previewed as diffs, then committed together.
 * Commit re-checks each file is still as planned, keeps its prior content
 * for undo, writes atomically (through _file_io.ts, so through the confined
 * writer when one is routed), and on any failure puts back the files it
 * already wrote before reporting. edit, write, apply_patch, file_copy and
 * file_delete go through it; so should every future writer.
 */
import { type ToolContext, ToolError } from "../tool.ts";
import { fileSystemError, type ToolPath, withFileErrors } from "../tool_paths.ts";
import { diskWriter, type FileWriter, readFileOrNull, statOrNull } from "./_file_io.ts";
import { type FileDiff, fileDiff } from "./_file_diff.ts";
import type { FileLedger } from "./file_ledger.ts";
import { currentContent, editorWriter, readExistingContent } from "./_editor_route.ts";

/** One file's change. `before` null: no file there; `after` null: remove it. */
export interface FileChange {
  target: ToolPath;
  /** The bytes the plan was made from: commit refuses if the file no longer holds them. */
  before: Uint8Array | null;
  after: Uint8Array | null;
  /** LF texts for the preview (null: no file on that side). */
  beforeText: string | null;
  afterText: string | null;
  /** The removed path is a symbolic link, and this is what it points to. */
  link?: string;
  /** The mode the written file gets (file_copy: the source's); absent: the replaced file's. */
  mode?: number;
  /**
   * No read of the file is needed first: file_delete, a capability of its
   * own that is asked for, whose bytes and mode undo keeps.
   */
  readNotNeeded?: boolean;
}

/** A checked plan: what commit will write, in the order given. */
export interface ChangeSet {
  readonly changes: readonly FileChange[];
}

/** Everything the change set needs of a tool's context. */
export type ChangeContext = Pick<ToolContext, "files" | "editor">;

/** Run `work` holding every path's lock, taken in sorted order so two sets cannot deadlock. */
export async function withFileLocks<T>(
  ledger: Pick<FileLedger, "withLock">,
  paths: string[],
  work: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = [...new Set(paths)].sort();
  if (first === undefined) return await work();
  return await ledger.withLock(first, () => withFileLocks(ledger, rest, work));
}

/**
 * Check a plan before anything is written: each path once, and every file
 * that exists and is not a removed link read in this session and unchanged
 * since (the read-before-edit rule; a tool may have checked it already with
 * its own message).
 */
export function planChangeSet(ctx: ChangeContext, changes: FileChange[]): ChangeSet {
  const seen = new Set<string>();
  for (const change of changes) {
    if (seen.has(change.target.real)) {
      throw new ToolError(
        "bad_input",
        `${change.target.display} is changed twice in one step. No file was changed.`,
        "Put all the changes to one file together.",
      );
    }
    seen.add(change.target.real);
    if (change.link === undefined && !change.readNotNeeded) {
      ctx.files.assertEditable(change.target.real, change.before, change.target.display);
    }
  }
  return { changes: [...changes] };
}

/** The diff of each change, in order (a move's source and destination diff separately). */
export function previewChangeSet(set: ChangeSet): FileDiff[] {
  return set.changes.map((change) => previewChange(change));
}

/** One change's diff; `fromPath` names the old side when the content moved. */
export function previewChange(change: FileChange, fromPath?: string): FileDiff {
  return fileDiff(change.target.display, change.beforeText, change.afterText, fromPath);
}

export interface CommitOptions {
  /** The writer; a test swaps it to make a write fail midway. @default diskWriter */
  io?: FileWriter;
  /**
   * The error reported when a change fails, after the rollback; `notRestored`
   * names the files that could not be put back (empty when all were).
   * @default the apply_patch wording: "Writing X failed (…). Every file …"
   */
  failure?: (failed: FileChange, error: unknown, notRestored: string[]) => Error;
}

interface Prior {
  change: FileChange;
  mode: number | null;
}

/**
 * Write the set. Order: writes first, then removals, removed links last (the
 * rollback puts back files, not links). Each change: check the file is as
 * planned, snapshot for undo, write or remove atomically. A failure puts back
 * what this set already wrote (bytes and mode; created files removed), then
 * throws. The read-before-edit ledger learns the new content only when
 * every change landed. Call it holding the locks of every path.
 */
export async function commitChangeSet(
  ctx: ChangeContext,
  set: ChangeSet,
  options: CommitOptions = {},
): Promise<void> {
  const io = editorWriter(ctx, options.io ?? diskWriter);
  const { changes } = set;
  const ordered = [
    ...changes.filter((c) => c.after !== null),
    ...changes.filter((c) => c.after === null && c.link === undefined),
    ...changes.filter((c) => c.after === null && c.link !== undefined),
  ];
  const done: Prior[] = [];
  try {
    for (const change of ordered) {
      const mode = await stillAsPlanned(ctx, change);
      // A removed link is kept for undo as the link (its text), not its target's bytes.
      const before = change.link !== undefined
        ? new TextEncoder().encode(change.link)
        : change.before;
      await ctx.files.snapshot(change.target.real, before, change.after);
      if (change.after === null) await io.remove(change.target.real);
      else await io.write(change.target.real, change.after, change.mode);
      done.push({ change, mode });
    }
  } catch (error) {
    const failed = ordered[done.length];
    const notRestored = await rollBack(done, io);
    throw (options.failure ?? patchFailure)(failed, error, notRestored);
  }
  for (const change of changes) {
    if (change.after !== null) ctx.files.markWritten(change.target.real, change.after);
  }
}

/** Put back what was written, newest first; answers the paths it could not. */
async function rollBack(done: Prior[], io: FileWriter): Promise<string[]> {
  const notRestored: string[] = [];
  for (const { change, mode } of done.reverse()) {
    if (change.link !== undefined) {
      notRestored.push(`${change.target.display} (a symbolic link to ${change.link})`);
      continue;
    }
    try {
      if (change.before === null) await io.remove(change.target.real);
      else await io.write(change.target.real, change.before, mode ?? undefined);
    } catch {
      notRestored.push(change.target.display);
    }
  }
  return notRestored;
}

/**
 * Throws unless the path still holds what the plan read (the same bytes, no
 * file, or the same link); answers the file's mode for the rollback.
 */
async function stillAsPlanned(ctx: ChangeContext, change: FileChange): Promise<number | null> {
  const { target } = change;
  const changed = () =>
    new ToolError(
      "file_changed",
      `${target.display} changed on disk while the change was being prepared.`,
      `Read ${target.display} again, then redo the change.`,
    );
  const info = await lstatOrNull(target.real);
  if (change.link !== undefined) {
    if (!info?.isSymlink || (await Deno.readLink(target.real)) !== change.link) throw changed();
    return null;
  }
  if (change.before === null) {
    if (info) throw changed();
    return null;
  }
  const current = info?.isSymlink ? await Deno.stat(target.real) : info;
  if (!current?.isFile) throw changed();
  const bytes = await readExistingContent(ctx, target);
  if (!sameBytes(bytes, change.before)) throw changed();
  return current.mode;
}

async function lstatOrNull(file: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Plan, commit and preview a change of one file, for a tool that writes one:
 * a failure reads as the file tools' own ("Could not write a.txt: …").
 */
export async function commitFileChange(
  ctx: ChangeContext,
  change: FileChange,
  verb: "write" | "create",
): Promise<FileDiff> {
  await commitChangeSet(ctx, planChangeSet(ctx, [change]), {
    failure: (_, error) => fileSystemError(change.target.display, verb, error),
  });
  return previewChange(change);
}

function patchFailure(failed: FileChange, error: unknown, notRestored: string[]): Error {
  return new ToolError(
    "failed",
    `Writing ${failed.target.display} failed (${
      error instanceof Error ? error.message : error
    }). ` +
      (notRestored.length
        ? `Could not restore: ${notRestored.join(", ")}; check them.`
        : "Every file already written was restored; no file was changed."),
    "Check that the folder is writable and the disk has space, then retry.",
  );
}

/**
 * One file's tool call under its lock: a folder is refused (with the tool's
 * own hint), the bytes on disk now (null when there is no file) go to
 * `work`, and file system errors come back in the tool's words.
 */
export function withLockedFile<T>(
  ctx: ToolContext,
  target: ToolPath,
  verb: string,
  folderHint: string,
  work: (before: Uint8Array | null) => Promise<T>,
): Promise<T> {
  return withFileErrors(
    target.display,
    verb,
    () =>
      withFileLocks(ctx.files, [target.real], async () => {
        const info = await statOrNull(target.real);
        if (info?.isDirectory) {
          throw new ToolError("bad_input", `${target.display} is a directory.`, folderHint);
        }
        const disk = info ? await readFileOrNull(target.real, target.display) : null;
        return await work(await currentContent(ctx, target.real, disk, target.display));
      }),
  );
}

/** The metadata every writing tool reports about its diff. */
export function diffMetadata(diff: FileDiff): Record<string, unknown> {
  return {
    diff: diff.diff,
    additions: diff.additions,
    deletions: diff.deletions,
    ...(diff.truncated ? { diff_truncated: true } : {}),
  };
}
