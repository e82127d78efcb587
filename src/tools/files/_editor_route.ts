/**
 * The file tools inside an editor that offers its buffers (`skiff acp`): a
 * text file's content comes from the editor, unsaved changes included, so
 * what the model reads, what an edit matches against and what the
 * read-before-edit ledger records are the buffer the person sees; new
 * text goes back to the editor instead of to disk. The path has been judged
 * before either happens (a tool's `execute` runs only after the gate).
 *
 * Only UTF-8 text crosses: the editor's protocol carries text, so a binary
 * file, an image, or text stored as UTF-16 or Latin-1 is read and written on
 * disk as before, and so is a removal (the protocol has none).
 */
import { ToolError } from "../tool.ts";
import type { ToolContext } from "../tool.ts";
import type { ToolPath } from "../tool_paths.ts";
import type { FileWriter } from "./_file_io.ts";
import { decodeText, looksBinary } from "./_text_encoding.ts";

/** The largest buffer taken from an editor, as read takes from disk: a hostile editor's answer is bounded. */
const EDITOR_TEXT_MAX_CHARS = 50 * 1024 * 1024;

/** Whether `bytes` are UTF-8 text the editor's protocol can carry. */
function isUtf8Text(bytes: Uint8Array): boolean {
  return !looksBinary(bytes) && decodeText(bytes).encoding === "utf-8";
}

/** Why the editor's answer is not used, in the file tools' words. */
function editorFailure(display: string, verb: string, error: unknown): ToolError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ToolError(
    "failed",
    `The editor did not ${verb} ${display}: ${reason.replace(/\.$/, "")}.`,
    "Retry once the editor answers; if it keeps failing, save the file in the editor and " +
      "run skiff in a terminal instead.",
  );
}

/**
 * The content of `file` as the tools should see it: the editor's buffer
 * when it offers reads and the file on disk (`disk`) is UTF-8 text; else
 * `disk` itself. A failure or an oversized answer is a tool error, never a
 * silent fall back to disk.
 */
export async function currentContent(
  ctx: Pick<ToolContext, "editor">,
  file: string,
  disk: Uint8Array | null,
  display = file,
): Promise<Uint8Array | null> {
  const read = ctx.editor?.read;
  if (!read || disk === null || !isUtf8Text(disk)) return disk;
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    throw editorFailure(display, "give the text of", error);
  }
  if (typeof text !== "string" || text.length > EDITOR_TEXT_MAX_CHARS) {
    throw editorFailure(display, "give the text of", new Error("its answer was not usable text"));
  }
  return new TextEncoder().encode(text);
}

/** The file at `target` as the tools should see it (`currentContent`), for a file known to exist. */
export async function readExistingContent(
  ctx: Pick<ToolContext, "editor">,
  target: ToolPath,
): Promise<Uint8Array> {
  const disk = await Deno.readFile(target.real);
  return (await currentContent(ctx, target.real, disk, target.display)) ?? disk;
}

/**
 * `base` with text writes sent to the editor when it takes them: UTF-8
 * text goes there without a byte-order mark (the editor keeps its own),
 * anything else and every removal through `base`.
 */
export function editorWriter(ctx: Pick<ToolContext, "editor">, base: FileWriter): FileWriter {
  const write = ctx.editor?.write;
  if (!write) return base;
  return {
    write: (file, bytes, mode) => {
      if (!isUtf8Text(bytes)) return base.write(file, bytes, mode);
      return write(file, new TextDecoder().decode(bytes)).catch((error) => {
        throw editorFailure(file, "take the new text of", error);
      });
    },
    remove: (file) => base.remove(file),
  };
}
