/**
 * The `write` tool: create a file, or replace one the model has read and
 * that is unchanged since, through the change set (change_set.ts). Parent
 * folders are created; the write is atomic; an existing file keeps its mode,
 * line endings, BOM and final newline. The diff goes to metadata, the model
 * gets line counts.
 */
import * as z from "zod";
import { defineTool } from "../tool.ts";
import {
  countLines,
  decodeText,
  encodeText,
  keepFinalNewline,
  linesText,
  looksBinary,
  statOrNull,
  toLf,
} from "./_file_io.ts";
import { fileDiff } from "./_file_diff.ts";
import { commitFileChange, diffMetadata, type FileChange, withLockedFile } from "./change_set.ts";
import { withDiagnostics } from "./_diagnostics.ts";
import { fileAccess, PREVIEW_MAX_BYTES, resolveToolPath } from "../tool_paths.ts";

export const writeSchema = z.lazy(() =>
  z.object({
    file_path: z.string().describe(
      "File to write: relative to the workspace, or absolute. Missing folders are created.",
    ),
    content: z.string().describe("The complete new content of the file."),
  })
);

export type WriteInput = z.infer<typeof writeSchema>;

/** The text that would land on disk for `content` over `before` (null: new file). */
function plannedText(before: Uint8Array | null, content: string) {
  if (before === null || looksBinary(before)) {
    const beforeText = before === null ? null : "";
    return { beforeText, afterText: toLf(content), bytes: new TextEncoder().encode(content) };
  }
  const doc = decodeText(before);
  const afterText = keepFinalNewline(doc.text, toLf(content));
  return { beforeText: doc.text, afterText, bytes: encodeText(afterText, doc) };
}

export const writeTool = defineTool({
  name: "write",
  description:
    "Write a whole file: create it (with any missing folders) or replace its entire content. " +
    "An existing file must have been read in this session and be unchanged since. Prefer edit " +
    "for changing part of a file. An existing file keeps its line endings and permissions.",
  schema: writeSchema,

  async declare(input, ctx) {
    const target = resolveToolPath(ctx, input.file_path);
    let preview: string | undefined;
    try {
      const info = await statOrNull(target.real);
      if (!info || (info.isFile && info.size <= PREVIEW_MAX_BYTES)) {
        const planned = plannedText(info ? await Deno.readFile(target.real) : null, input.content);
        preview = fileDiff(target.display, planned.beforeText, planned.afterText).diff;
      }
    } catch {
      // No preview: execute reports any problem.
    }
    return fileAccess("edit", [target], preview);
  },

  async execute(input, ctx) {
    const target = resolveToolPath(ctx, input.file_path);
    const changed: FileChange[] = [];
    const result = await withLockedFile(
      ctx,
      target,
      "write",
      "Give a file path inside it.",
      async (before) => {
        ctx.files.assertEditable(target.real, before, target.display);
        const planned = plannedText(before, input.content);
        const lines = countLines(planned.afterText);
        if (before !== null && planned.beforeText === planned.afterText) {
          ctx.files.markWritten(target.real, before);
          return {
            output: `${target.display} already has this content (${
              linesText(lines)
            }); nothing written.`,
            title: `${target.display} (unchanged)`,
            metadata: { diff: "", additions: 0, deletions: 0 },
          };
        }
        const change = {
          target,
          before,
          after: planned.bytes,
          beforeText: planned.beforeText,
          afterText: planned.afterText,
        };
        const diff = await commitFileChange(ctx, change, "write");
        changed.push(change);
        const output = before === null
          ? `Created ${target.display} (${linesText(lines)}).`
          : `Replaced ${target.display}: ${linesText(lines)}, was ${
            countLines(planned.beforeText ?? "")
          } (+${diff.additions} -${diff.deletions}).`;
        return {
          output,
          title: `${target.display} (${
            before === null ? "created" : `+${diff.additions} -${diff.deletions}`
          })`,
          metadata: { ...diffMetadata(diff), created: before === null },
        };
      },
    );
    // Outside the file's lock: the language server's wait holds no other call.
    return await withDiagnostics(ctx, result, changed);
  },
});
