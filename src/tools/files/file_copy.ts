/**
 * The `file_copy` tool: one regular file copied to another path, its bytes
 * read from disk and written through the change set (change_set.ts), so
 * binary assets never pass through the model's tokens and undo, events and
 * the rollback treat the copy like an edit. The destination is the written
 * path (edit rules, protected paths, undo, the read ledger); the source is
 * only read, and judged as a read through the gate mid-call. A source that
 * is a symbolic link is followed, and the file it leads to is what is judged;
 * a destination that is a symbolic link is refused, so a copy never writes
 * through a link.
 */
import * as z from "zod";
import { type Access, defineTool, type ToolContext, ToolError } from "../tool.ts";
import { decodeText, looksBinary, readFileOrNull, statOrNull } from "./_file_io.ts";
import { currentContent } from "./_editor_route.ts";
import { commitFileChange, type FileChange, withFileLocks } from "./change_set.ts";
import { fileAccess, resolveToolPath, type ToolPath, withFileErrors } from "../tool_paths.ts";

export const fileCopySchema = z.lazy(() =>
  z.object({
    source: z.string().describe(
      "The file to copy: relative to the workspace, or absolute. One regular file, not a folder.",
    ),
    destination: z.string().describe(
      "The path of the copy (a file path, not a folder): relative to the workspace, or absolute. " +
        "Missing folders are created; an existing file there must have been read first.",
    ),
  })
);

export type FileCopyInput = z.infer<typeof fileCopySchema>;

function paths(
  input: FileCopyInput,
  ctx: ToolContext,
): { source: ToolPath; destination: ToolPath } {
  return {
    source: resolveToolPath(ctx, input.source),
    destination: resolveToolPath(ctx, input.destination),
  };
}

/** The source's read, as the read tool would declare it. */
function sourceRead(source: ToolPath): Access {
  return fileAccess("read", [source]);
}

/**
 * The read rules judge the source: through the gate (which may ask a
 * person) when it offers `authorize`, else by the rules' own verdict; with
 * neither, nothing beyond the declared write is allowed.
 */
async function authorizeSource(source: ToolPath, ctx: ToolContext): Promise<void> {
  if (ctx.authorize) return await ctx.authorize(sourceRead(source));
  const verdict = ctx.readVerdict?.(source.real, source.display);
  if (verdict?.action === "allow") return;
  throw new ToolError(
    "denied",
    `Reading ${source.display} to copy it is not allowed here${
      verdict ? ` (${verdict.reason})` : ""
    }.`,
    "Copy a file the read rules allow, or ask the user to allow reading it.",
  );
}

function refuseLinkDestination(destination: ToolPath): void {
  let isLink = false;
  try {
    isLink = Deno.lstatSync(destination.resolved.requested).isSymlink;
  } catch {
    return; // Nothing there yet.
  }
  if (isLink) {
    throw new ToolError(
      "bad_input",
      `${destination.display} is a symbolic link; file_copy does not write through a link.`,
      "Copy to the path of the file the link points to, or delete the link first with file_delete.",
    );
  }
}

export const fileCopyTool = defineTool({
  name: "file_copy",
  description:
    "Copy one file to another path, byte for byte, keeping its permissions: use it for images, " +
    "fonts, fixtures or any file you would otherwise have to read and write out again. " +
    "Folders are not copied. Missing folders of the destination are created; an existing " +
    "destination is replaced only if it was read in this session and is unchanged since.",
  schema: fileCopySchema,

  declare(input, ctx) {
    const { source, destination } = paths(input, ctx);
    const write = fileAccess("edit", [destination]);
    // The source is read as well: outside the workspace, external_directory decides too.
    const reads = [...new Set([...(sourceRead(source).reads ?? []), ...(write.reads ?? [])])];
    return { ...write, reads, preview: `copy ${source.display} → ${destination.display}` };
  },

  async execute(input, ctx) {
    const { source, destination } = paths(input, ctx);
    if (source.real === destination.real) {
      throw new ToolError(
        "bad_input",
        `${source.display} and ${destination.display} are the same file.`,
        "Give a destination that is another path.",
      );
    }
    refuseLinkDestination(destination);
    await authorizeSource(source, ctx);
    const sourceInfo = await withFileErrors(source.display, "read", () => statOrNull(source.real));
    if (!sourceInfo) {
      throw new ToolError(
        "not_found",
        `${source.display} does not exist.`,
        "Give the path of an existing file; use glob or list to find it.",
      );
    }
    if (!sourceInfo.isFile) {
      throw new ToolError(
        "bad_input",
        `${source.display} is ${sourceInfo.isDirectory ? "a folder" : "not a regular file"}; ` +
          "file_copy copies one regular file.",
        "Copy the files inside it one by one, or use bash (cp -r) for a whole folder.",
      );
    }
    return await withFileErrors(
      destination.display,
      "write",
      () =>
        withFileLocks(ctx.files, [destination.real], async () => {
          const info = await statOrNull(destination.real);
          if (info?.isDirectory) {
            throw new ToolError(
              "bad_input",
              `${destination.display} is a folder.`,
              `Give the full path of the copy, e.g. ${destination.display}/<file name>.`,
            );
          }
          const bytes = await Deno.readFile(source.real);
          const disk = info ? await readFileOrNull(destination.real, destination.display) : null;
          // The copy replaces what the editor holds, as edit would.
          const before = await currentContent(ctx, destination.real, disk, destination.display);
          ctx.files.assertEditable(destination.real, before, destination.display);
          const binary = looksBinary(bytes) || (before !== null && looksBinary(before));
          const change: FileChange = {
            target: destination,
            before,
            after: bytes,
            // A binary copy is previewed as no text: its bytes go nowhere near the model.
            beforeText: before === null ? null : binary ? "" : decodeText(before).text,
            afterText: binary ? "" : decodeText(bytes).text,
            mode: sourceInfo.mode === null ? undefined : sourceInfo.mode & 0o7777,
          };
          const diff = await commitFileChange(ctx, change, before === null ? "create" : "write");
          const size = `${bytes.length} byte${bytes.length === 1 ? "" : "s"}`;
          return {
            output: `Copied ${source.display} to ${destination.display} (${size}${
              before === null ? "" : ", replacing the file there"
            }).`,
            title: `${source.display} → ${destination.display}`,
            metadata: {
              source: source.display,
              diff: diff.diff,
              additions: diff.additions,
              deletions: diff.deletions,
              created: before === null,
              bytes: bytes.length,
              binary,
            },
          };
        }),
    );
  },
});
