/**
 * The `apply_patch` tool: several files added, deleted, updated or moved in
 * one call, all or none. Every change is planned in memory first (files
 * read, the read-before-edit rule checked, every chunk located); only then
 * is anything written (change_set.ts), and if a write fails midway the files
 * already written are put back.
 */
import * as z from "zod";
import { defineTool } from "../tool.ts";
import { parsePatch } from "./_apply_patch_parser.ts";
import { declaredPaths, plan, type PlannedChange } from "./_apply_patch_plan.ts";
import { diskWriter, type FileWriter } from "./_file_io.ts";
import { commitChangeSet, planChangeSet, previewChange, withFileLocks } from "./change_set.ts";
import { fileAccess, withFileErrors } from "../tool_paths.ts";
import { withDiagnostics } from "./_diagnostics.ts";

export const applyPatchSchema = z.lazy(() =>
  z.object({
    patch: z.string().describe(
      "The whole patch, from *** Begin Patch to *** End Patch. Sections: " +
        "*** Add File: <path> followed by lines starting with +; " +
        "*** Delete File: <path>; " +
        "*** Update File: <path>, optionally *** Move to: <new path>, then chunks: an @@ line " +
        "(optionally followed by a line of the file to search from), then lines starting with " +
        "space (unchanged context), - (removed) or + (added); *** End of File after a chunk that " +
        "ends at the end of the file.",
    ),
  })
);

export type ApplyPatchInput = z.infer<typeof applyPatchSchema>;

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
      ? previewChange({ ...change, beforeText: source.beforeText }, source.target.display)
      : previewChange(change);
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
      let written: PlannedChange[] = [];
      const result = await withFileErrors(
        "the files of this patch",
        "change",
        () =>
          withFileLocks(ctx.files, paths, async () => {
            const changes = await plan(operations, ctx);
            await commitChangeSet(ctx, planChangeSet(ctx, changes), { io });
            written = changes;
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
      // Outside the files' locks: the language servers' wait holds no other call.
      return await withDiagnostics(ctx, result, written);
    },
  });
}

export const applyPatchTool = createApplyPatchTool();
