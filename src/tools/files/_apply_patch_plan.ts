/**
 * The planning half of apply_patch: every operation turned into the bytes
 * each file will hold, in memory, with nothing written. Files are read, the
 * read-before-edit rule is checked (for a file replaced by an add or a move
 * too), chunks are located, and a symbolic link that is deleted or moved
 * stands for itself, not for the file it points to.
 */
import { type ToolContext, ToolError } from "../tool.ts";
import type { PatchOperation } from "./_apply_patch_parser.ts";
import { applyChunks } from "./_apply_patch_chunks.ts";
import { decodeText, encodeText, looksBinary, statOrNull, type TextDocument } from "./_file_io.ts";
import { resolveToolPath, type ToolPath } from "../tool_paths.ts";
import { symlinkAt } from "./_symlink.ts";
import { readExistingContent } from "./_editor_route.ts";
import type { FileChange } from "./change_set.ts";

/** One file's planned change, with what the patch did to it. */
export interface PlannedChange extends FileChange {
  action: "add" | "delete" | "update" | "move-from" | "move-to";
  /** An add or move that replaced a file already there (read and unchanged). */
  replaced?: boolean;
}

async function readExisting(target: ToolPath, ctx: ToolContext, verb: string): Promise<Uint8Array> {
  const info = await statOrNull(target.real);
  if (!info?.isFile) {
    throw new ToolError(
      "not_found",
      `Cannot ${verb} ${target.display}: ${
        info ? "it is not a regular file" : "it does not exist"
      }. No file was changed.`,
      "Check the path, or use *** Add File to create a new file.",
    );
  }
  const bytes = await readExistingContent(ctx, target);
  ctx.files.assertEditable(target.real, bytes, target.display);
  if (looksBinary(bytes)) {
    throw new ToolError(
      "binary_file",
      `${target.display} is a binary file; apply_patch changes text files only.`,
    );
  }
  return bytes;
}

/**
 * The file an Add File or a move would replace, or null when there is none.
 * Replacing is allowed on the read-before-edit rule's terms: the file was
 * read in this session and is unchanged since.
 */
async function readReplaced(
  target: ToolPath,
  ctx: ToolContext,
  what: string,
): Promise<{ bytes: Uint8Array; doc: TextDocument } | null> {
  const info = await statOrNull(target.real);
  if (!info) return null;
  if (!info.isFile) {
    throw new ToolError(
      "bad_input",
      `${target.display} exists and is not a regular file, so ${what} cannot replace it. ` +
        "No file was changed.",
      "Choose another path.",
    );
  }
  const bytes = await readExistingContent(ctx, target);
  try {
    ctx.files.assertEditable(target.real, bytes, target.display);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    const why = error.code === "file_not_read"
      ? "has not been read in this session"
      : "changed on disk since it was last read";
    throw new ToolError(
      error.code,
      `${target.display} already exists and ${why}, so ${what} cannot replace it. ` +
        "No file was changed.",
      `Read ${target.display} first if you mean to replace it, then retry; ` +
        "or use *** Update File to change part of it, or choose another path.",
    );
  }
  if (looksBinary(bytes)) {
    throw new ToolError(
      "binary_file",
      `${target.display} is a binary file; apply_patch replaces text files only.`,
    );
  }
  return { bytes, doc: decodeText(bytes) };
}

/** The paths an operation touches, as the model wrote them. */
function pathsOf(operation: PatchOperation): string[] {
  return operation.kind === "update" && operation.moveTo !== undefined
    ? [operation.path, operation.moveTo]
    : [operation.path];
}

/**
 * Everything a call would write: each path, and for a symbolic link that a
 * delete or move removes, the link itself and the folder holding it (where
 * the removal happens), besides the file it points to.
 */
export function declaredPaths(operations: PatchOperation[], ctx: ToolContext): ToolPath[] {
  return operations.flatMap((operation) => {
    const paths = pathsOf(operation).map((p) => resolveToolPath(ctx, p));
    const removesSource = operation.kind === "delete" ||
      (operation.kind === "update" && operation.moveTo !== undefined &&
        paths[1].real !== paths[0].real);
    const link = removesSource ? symlinkAt(ctx, paths[0]) : null;
    return link ? [...paths, link.path, link.folder] : paths;
  });
}

/** The source of a delete or move: the link itself when it is one, else the file. */
async function planRemoval(
  target: ToolPath,
  ctx: ToolContext,
  verb: string,
): Promise<
  { removed: ToolPath; before: Uint8Array | null; doc: TextDocument | null; link?: string }
> {
  const link = symlinkAt(ctx, target);
  // A dangling link shows no content: there is nothing to have read.
  if (link && !(await statOrNull(target.real))) {
    return { removed: link.path, before: null, doc: null, link: link.text };
  }
  const before = await readExisting(target, ctx, verb);
  const doc = decodeText(before);
  return link
    ? { removed: link.path, before, doc, link: link.text }
    : { removed: target, before, doc };
}

export async function plan(
  operations: PatchOperation[],
  ctx: ToolContext,
): Promise<PlannedChange[]> {
  const changes: PlannedChange[] = [];
  const claimed = new Map<string, string>();
  // A path written through a link claims the link too: deleting the link in the same
  // patch would otherwise turn "replace the link with a file" into "clobber its target".
  const claim = (target: ToolPath, asked: string) => {
    const link = symlinkAt(ctx, target);
    for (const path of link && link.path.real !== target.real ? [target, link.path] : [target]) {
      const earlier = claimed.get(path.real);
      if (earlier !== undefined) {
        throw new ToolError(
          "bad_input",
          `${path.display} is named twice in this patch (as "${earlier}" and "${asked}"). ` +
            "No file was changed.",
          "Put all the changes to one file in one section.",
        );
      }
      claimed.set(path.real, asked);
    }
  };
  for (const operation of operations) {
    const target = resolveToolPath(ctx, operation.path);
    if (operation.kind === "add") {
      claim(target, operation.path);
      const text = operation.lines.length ? operation.lines.join("\n") + "\n" : "";
      const existing = await readReplaced(target, ctx, "*** Add File");
      changes.push({
        target,
        action: "add",
        before: existing?.bytes ?? null,
        after: existing ? encodeText(text, existing.doc) : new TextEncoder().encode(text),
        beforeText: existing?.doc.text ?? null,
        afterText: text,
        replaced: existing !== null,
      });
      continue;
    }
    if (operation.kind === "delete") {
      const source = await planRemoval(target, ctx, "delete");
      claim(source.removed, operation.path);
      changes.push({
        target: source.removed,
        action: "delete",
        before: source.before,
        after: null,
        beforeText: source.doc?.text ?? null,
        afterText: null,
        link: source.link,
      });
      continue;
    }
    const destination = operation.moveTo === undefined
      ? undefined
      : resolveToolPath(ctx, operation.moveTo);
    // A move onto the file itself is an update in place.
    if (!destination || destination.real === target.real) {
      claim(target, operation.path);
      const before = await readExisting(target, ctx, "update");
      const doc = decodeText(before);
      const text = applyChunks(doc.text, operation.chunks, target.display);
      changes.push({
        target,
        action: "update",
        before,
        after: encodeText(text, doc),
        beforeText: doc.text,
        afterText: text,
      });
      continue;
    }
    const source = await planRemoval(target, ctx, "move");
    if (!source.doc || !source.before) {
      throw new ToolError(
        "not_found",
        `Cannot move ${target.display}: it is a symbolic link to a file that does not exist. ` +
          "No file was changed.",
        "Use *** Delete File to remove the link, and *** Add File to create the new file.",
      );
    }
    claim(source.removed, operation.path);
    claim(destination, operation.moveTo!);
    const text = applyChunks(source.doc.text, operation.chunks, target.display);
    const existing = await readReplaced(destination, ctx, "the move");
    changes.push({
      target: destination,
      action: "move-to",
      before: existing?.bytes ?? null,
      after: encodeText(text, source.doc),
      beforeText: null,
      afterText: text,
      replaced: existing !== null,
    });
    changes.push({
      target: source.removed,
      action: "move-from",
      before: source.before,
      after: null,
      beforeText: source.doc.text,
      afterText: null,
      link: source.link,
    });
  }
  return changes;
}
