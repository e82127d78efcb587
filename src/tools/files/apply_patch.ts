/**
 * The `apply_patch` tool: several files added, deleted, updated or moved in
 * one call, all or none. Every change is planned in memory first (files
 * read, the read-before-edit rule checked, every chunk located); only then
 * is anything written, and if a write fails midway the files already written
 * are put back.
 */
import { z } from "zod";
import { defineTool, type ToolContext, ToolError } from "../tool.ts";
import { parsePatch } from "./_apply_patch_parser.ts";
import { declaredPaths, plan, type PlannedChange } from "./_apply_patch_plan.ts";
import { diskWriter, type FileWriter } from "./_file_io.ts";
import { fileDiff } from "./_file_diff.ts";
import { fileAccess, withFileErrors } from "../tool_paths.ts";

export const applyPatchSchema = z.object({
  patch: z.string().describe(
    "The whole patch, from *** Begin Patch to *** End Patch. Sections: " +
      "*** Add File: <path> followed by lines starting with +; " +
      "*** Delete File: <path>; " +
      "*** Update File: <path>, optionally *** Move to: <new path>, then chunks: an @@ line " +
      "(optionally followed by a line of the file to search from), then lines starting with " +
      "space (unchanged context), - (removed) or + (added); *** End of File after a chunk that " +
      "ends at the end of the file.",
  ),
});

export type ApplyPatchInput = z.infer<typeof applyPatchSchema>;

/** Run `work` holding every path's lock, always taken in the same (sorted) order. */
async function withLocks<T>(ctx: ToolContext, paths: string[], work: () => Promise<T>): Promise<T> {
  const [first, ...rest] = [...new Set(paths)].sort();
  if (first === undefined) return await work();
  return await ctx.files.withLock(first, () => withLocks(ctx, rest, work));
}

/** Write every change; on a failure, put back what was already written and rethrow. */
async function commit(changes: PlannedChange[], ctx: ToolContext, io: FileWriter): Promise<void> {
  // Removals last: a failed write then has fewer steps to undo. Removed links
  // come very last: the file writer puts back files, not links.
  const ordered = [
    ...changes.filter((c) => c.after !== null),
    ...changes.filter((c) => c.after === null && c.link === undefined),
    ...changes.filter((c) => c.after === null && c.link !== undefined),
  ];
  const done: PlannedChange[] = [];
  try {
    for (const change of ordered) {
      // A removed link is kept for undo as the link (its text), not its target's bytes.
      const before = change.link !== undefined
        ? new TextEncoder().encode(change.link)
        : change.before;
      await ctx.files.snapshot(change.target.real, before);
      if (change.after === null) await io.remove(change.target.real);
      else await io.write(change.target.real, change.after);
      done.push(change);
    }
  } catch (error) {
    const failed = ordered[done.length];
    const notRestored: string[] = [];
    for (const change of done.reverse()) {
      if (change.link !== undefined) {
        notRestored.push(`${change.target.display} (a symbolic link to ${change.link})`);
        continue;
      }
      try {
        if (change.before === null) await io.remove(change.target.real);
        else await io.write(change.target.real, change.before);
      } catch {
        notRestored.push(change.target.display);
      }
    }
    throw new ToolError(
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
  for (const change of changes) {
    if (change.after !== null) ctx.files.markWritten(change.target.real, change.after);
  }
}

const LETTER = { add: "A", delete: "D", update: "M", "move-to": "R", "move-from": "" } as const;

function summarise(changes: PlannedChange[]) {
  const files: { path: string; action: string; additions: number; deletions: number }[] = [];
  const diffs: string[] = [];
  let additions = 0;
  let deletions = 0;
  for (const [i, change] of changes.entries()) {
    // A move is one change of content under a new name, not a new file and a deleted one.
    const source = change.action === "move-to" ? changes[i + 1] : null;
    const diff = change.action === "move-from"
      ? { diff: "", additions: 0, deletions: 0 }
      : source
      ? fileDiff(change.target.display, source.beforeText, change.afterText, source.target.display)
      : fileDiff(change.target.display, change.beforeText, change.afterText);
    additions += diff.additions;
    deletions += diff.deletions;
    if (diff.diff) diffs.push(diff.diff);
    files.push({
      path: change.target.display,
      action: change.action,
      additions: diff.additions,
      deletions: diff.deletions,
    });
  }
  const lines = changes.flatMap((change, i) => {
    if (change.action === "move-from") return [];
    const { additions: plus, deletions: minus } = files[i];
    const from = change.action === "move-to" ? `${changes[i + 1].target.display} → ` : "";
    const replaced = change.replaced ? ", replaced the existing file" : "";
    const counts = change.action === "delete" ? "" : ` (+${plus} -${minus}${replaced})`;
    return [`${LETTER[change.action]} ${from}${change.target.display}${counts}`];
  });
  return { files, diff: diffs.join(""), additions, deletions, lines };
}

/** The tool, with the writer injectable so a test can make the third write fail. */
export function createApplyPatchTool(io: FileWriter = diskWriter) {
  return defineTool({
    name: "apply_patch",
    description:
      "Change several files in one step with a patch: add, delete, update (with @@ chunks of " +
      "context, - and + lines) or move files. All files change or none do. Files updated, " +
      "deleted or replaced (by Add File or a move onto them) must have been read in this " +
      "session and be unchanged since. Deleting or moving a symbolic link acts on the link. " +
      "Chunks are found after the previous one, else at the one place they match. Context lines are " +
      "matched exactly first, then tolerating whitespace and typographic quote/dash differences; " +
      "kept lines are never rewritten. Prefer edit for a single change in one file.",
    schema: applyPatchSchema,

    declare(input, ctx) {
      const operations = parsePatch(input.patch);
      return fileAccess("edit", declaredPaths(operations, ctx), input.patch.trim());
    },

    async execute(input, ctx) {
      const operations = parsePatch(input.patch);
      const paths = declaredPaths(operations, ctx).map((p) => p.real);
      return await withFileErrors(
        "the files of this patch",
        "change",
        () =>
          withLocks(ctx, paths, async () => {
            const changes = await plan(operations, ctx);
            await commit(changes, ctx, io);
            const summary = summarise(changes);
            return {
              output:
                `Applied the patch to ${summary.lines.length} file${
                  summary.lines.length === 1 ? "" : "s"
                }:\n` +
                summary.lines.join("\n"),
              title: `${
                summary.lines.length === 1
                  ? summary.files.find((file) => file.action !== "move-from")!.path
                  : `${summary.lines.length} files`
              } (+${summary.additions} -${summary.deletions})`,
              metadata: {
                diff: summary.diff,
                additions: summary.additions,
                deletions: summary.deletions,
                files: summary.files,
              },
            };
          }),
      );
    },
  });
}

export const applyPatchTool = createApplyPatchTool();
