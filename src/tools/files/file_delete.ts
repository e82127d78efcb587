/**
 * The `file_delete` tool: one file removed, through the change set
 * (change_set.ts), so undo brings it back with its mode and events treat the
 * removal like an edit. Deleting is a capability of its own (the `delete`
 * permission key, asked by default), never a side effect of a write. A path
 * that is a symbolic link removes the link and leaves the file it points to
 * alone; folders are refused. The policy judges where the link's path leads,
 * so a link out of the workspace is refused in workspace-write (as
 * apply_patch's Delete File is).
 */
import * as z from "zod";
import { type Access, defineTool, type ToolContext, ToolError } from "../tool.ts";
import { decodeText, looksBinary } from "./_file_io.ts";
import {
  commitChangeSet,
  type FileChange,
  planChangeSet,
  previewChange,
  withFileLocks,
} from "./change_set.ts";
import { type SymlinkAt, symlinkAt } from "./_symlink.ts";
import { fileSystemError, resolveToolPath, type ToolPath, withFileErrors } from "../tool_paths.ts";

export const fileDeleteSchema = z.lazy(() =>
  z.object({
    file_path: z.string().describe(
      "The file to delete: relative to the workspace, or absolute. A symbolic link is deleted " +
        "itself (the file it points to stays); folders are refused.",
    ),
  })
);

export type FileDeleteInput = z.infer<typeof fileDeleteSchema>;

/** What a call removes: the link itself when the path is one, else the file. */
function removedPath(
  input: FileDeleteInput,
  ctx: ToolContext,
): { target: ToolPath; link: SymlinkAt | null } {
  const target = resolveToolPath(ctx, input.file_path);
  return { target, link: symlinkAt(ctx, target) };
}

/** The `delete` key on the removed path; a link's folder is written as well. */
function deleteAccess(removed: ToolPath[]): Access {
  const real = [...new Set(removed.map((p) => p.real))];
  return {
    key: "delete",
    patterns: [removed[0].display],
    reads: real,
    writes: real,
    preview: `delete ${removed[0].display}`,
  };
}

export const fileDeleteTool = defineTool({
  name: "file_delete",
  description:
    "Delete one file. Undo brings it back with its permissions. A symbolic link is deleted " +
    "itself, never the file it points to. Folders are refused: use bash for those.",
  schema: fileDeleteSchema,

  declare(input, ctx) {
    const { target, link } = removedPath(input, ctx);
    return deleteAccess(link ? [link.path, link.folder] : [target]);
  },

  async execute(input, ctx) {
    const { target, link } = removedPath(input, ctx);
    const removed = link ? link.path : target;
    return await withFileErrors(
      removed.display,
      "delete",
      () =>
        withFileLocks(ctx.files, [removed.real], async () => {
          let change: FileChange;
          if (link) {
            change = {
              target: link.path,
              before: null,
              after: null,
              beforeText: null,
              afterText: null,
              link: link.text,
            };
          } else {
            const info = await Deno.lstat(target.real).catch((error) => {
              if (error instanceof Deno.errors.NotFound) return null;
              throw error;
            });
            if (!info) {
              throw new ToolError(
                "not_found",
                `${target.display} does not exist.`,
                "Check the path with glob or list; nothing was deleted.",
              );
            }
            if (!info.isFile) {
              throw new ToolError(
                "bad_input",
                `${target.display} is ${
                  info.isDirectory ? "a folder" : "not a regular file"
                }; file_delete deletes one file.`,
                "Delete the files inside it one by one, or ask the user to remove the folder.",
              );
            }
            const before = await Deno.readFile(target.real);
            const binary = looksBinary(before);
            change = {
              target,
              before,
              after: null,
              beforeText: binary ? "" : decodeText(before).text,
              afterText: null,
              readNotNeeded: true,
            };
          }
          await commitChangeSet(ctx, planChangeSet(ctx, [change]), {
            failure: (_, error) => fileSystemError(removed.display, "delete", error),
          });
          const diff = previewChange(change);
          const what = link
            ? `the symbolic link ${removed.display} (to ${link.text})`
            : removed.display;
          return {
            output: `Deleted ${what}.${link ? " The file it pointed to is untouched." : ""}`,
            title: `${removed.display} (deleted)`,
            metadata: {
              deleted: removed.display,
              link: link?.text ?? null,
              diff: diff.diff,
              additions: 0,
              deletions: diff.deletions,
            },
          };
        }),
    );
  },
});
