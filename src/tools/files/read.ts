/**
 * The `read` tool: a window of a text file with `cat -n` line numbers (the
 * frame of reference edit and the model share), a directory's entries, or a
 * description of an image. Binary files are refused with a way forward.
 * Reading records the whole file's content in the ledger, which is what
 * later allows edit and write to change it.
 */
import * as path from "../../lib/path.ts";
import * as z from "zod";
import { defineTool, type ToolContext, ToolError, type ToolResult } from "../tool.ts";
import { decodeText, linesText, looksBinary, statOrNull, statOrNullSync } from "./_file_io.ts";
import { currentContent } from "./_editor_route.ts";
import { imageInfo } from "./_image_info.ts";
import { ENCODING_LABELS } from "./_text_encoding.ts";
import { fileAccess, resolveToolPath, type ToolPath, withFileErrors } from "../tool_paths.ts";
import { similarity } from "./match/similarity.ts";

/** Lines returned by one call unless `limit` asks for fewer. */
export const READ_MAX_LINES = 2000;
/** Characters kept of one line. */
export const READ_MAX_LINE_CHARS = 2000;
/**
 * Characters of numbered text in one call. Kept under the loop's 30,000-char
 * output cap so a window is never cut in the middle: the model is told the
 * offset to continue from instead.
 */
export const READ_MAX_OUTPUT_CHARS = 28_000;
/** Larger files are refused: the whole content is hashed for the ledger. */
export const READ_MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Files up to this size are read without the async call's thread-pool round trip. */
const SYNC_READ_BYTES = 256 * 1024;
/** Entries listed for a directory. */
export const READ_MAX_ENTRIES = 1000;

export const readSchema = z.lazy(() =>
  z.object({
    file_path: z.string().describe(
      "File or directory to read: relative to the workspace, or absolute.",
    ),
    offset: z.number().int().min(1).optional().describe(
      "Line number to start from (1-based). Use the offset a previous read suggested to continue.",
    ),
    limit: z.number().int().min(1).optional().describe(
      `How many lines to return (at most ${READ_MAX_LINES}, the default).`,
    ),
  })
);

export type ReadInput = z.infer<typeof readSchema>;

async function similarNames(target: ToolPath): Promise<string[]> {
  const folder = path.dirname(target.real);
  const wanted = path.basename(target.real).toLowerCase();
  const scored: [number, string][] = [];
  try {
    for await (const entry of Deno.readDir(folder)) {
      const name = entry.name.toLowerCase();
      let score = similarity(name, wanted);
      if (name.includes(wanted) || wanted.includes(name)) score += 0.5;
      if (name.split(".")[0] === wanted.split(".")[0]) score += 0.5;
      if (score >= 0.5) scored.push([score, entry.name + (entry.isDirectory ? "/" : "")]);
    }
  } catch {
    return [];
  }
  const shownFolder = path.dirname(target.display);
  return scored.sort((a, b) => b[0] - a[0]).slice(0, 5).map(([, name]) =>
    shownFolder === "." ? name : `${shownFolder}/${name}`
  );
}

async function notFound(target: ToolPath): Promise<ToolError> {
  const folder = path.dirname(target.real);
  if (!(await statOrNull(folder))?.isDirectory) {
    return new ToolError(
      "not_found",
      `${target.display} does not exist, and neither does its folder.`,
      "Check the path; glob or list can show what exists.",
    );
  }
  const names = await similarNames(target);
  return new ToolError(
    "not_found",
    `${target.display} does not exist.`,
    names.length
      ? `Similar names in that folder: ${names.join(", ")}.`
      : "Check the path; glob or list can show what exists.",
    { similar: names },
  );
}

async function listDirectory(target: ToolPath): Promise<string> {
  const entries: string[] = [];
  for await (const entry of Deno.readDir(target.real)) {
    entries.push(entry.name + (entry.isDirectory ? "/" : ""));
  }
  entries.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const shown = entries.slice(0, READ_MAX_ENTRIES);
  const more = entries.length - shown.length;
  const head =
    `${target.display}/ is a directory with ${entries.length} entr${
      entries.length === 1 ? "y" : "ies"
    }` +
    (entries.length ? ":" : ".");
  return [head, ...shown, ...(more ? [`… ${more} more; use glob or list to narrow down.`] : [])]
    .join("\n");
}

function formatBytes(size: number): string {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB (${size} bytes)`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB (${size} bytes)`;
}

/** `text` as one shell word. */
function shellQuote(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Numbered lines like `cat -n`: the number right-aligned in six columns, then a tab. */
export function numberLines(
  lines: string[],
  firstLine: number,
  maxChars = READ_MAX_OUTPUT_CHARS,
): { text: string; count: number; firstCut: number | null } {
  const out: string[] = [];
  let size = 0;
  let firstCut: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    // A stray CR (a file with mixed endings) is not something the model should copy.
    let line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
    const cut = line.length > READ_MAX_LINE_CHARS;
    if (cut) {
      line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line cut: ${
        line.length - READ_MAX_LINE_CHARS
      } more characters]`;
    }
    const numbered = `${String(firstLine + i).padStart(6)}\t${line}`;
    // Always at least one line, so a call makes progress.
    if (out.length > 0 && size + numbered.length + 1 > maxChars) break;
    out.push(numbered);
    size += numbered.length + 1;
    if (cut) firstCut ??= firstLine + i;
  }
  return { text: out.join("\n"), count: out.length, firstCut };
}

/** The read itself, once the path is resolved. */
async function readTarget(
  target: ToolPath,
  input: ReadInput,
  ctx: ToolContext,
): Promise<ToolResult> {
  const info = statOrNullSync(target.real);
  if (!info) throw await notFound(target);
  if (info.isDirectory) {
    return { output: await listDirectory(target), title: `${target.display}/` };
  }
  if (!info.isFile) {
    throw new ToolError(
      "bad_input",
      `${target.display} is not a regular file (a device, socket or pipe); read shows files and folders.`,
    );
  }
  if (info.size > READ_MAX_FILE_BYTES) {
    throw new ToolError(
      "too_large",
      `${target.display} is ${formatBytes(info.size)}, more than read handles (at most ${
        READ_MAX_FILE_BYTES / 1024 / 1024
      } MiB).`,
      "Use grep to find the part you need, or bash with head/tail/sed -n to print a range.",
    );
  }
  // A small file is read at once; a large one through the thread pool, so
  // the engine's other work goes on meanwhile.
  const bytes = info.size <= SYNC_READ_BYTES
    ? Deno.readFileSync(target.real)
    : await Deno.readFile(target.real);
  const image = imageInfo(bytes);
  if (image) {
    ctx.files.markRead(target.real, bytes);
    const size = image.width !== undefined ? `, ${image.width}×${image.height} pixels` : "";
    return {
      output: `${target.display} is a ${image.format} image (${image.mime}), ${
        formatBytes(bytes.length)
      }${size}.`,
      title: `${target.display} (${image.format})`,
      metadata: {
        image: image.format,
        mime: image.mime,
        bytes: bytes.length,
        width: image.width,
        height: image.height,
      },
    };
  }
  if (looksBinary(bytes)) {
    throw new ToolError(
      "binary_file",
      `${target.display} is a binary file of ${formatBytes(bytes.length)}; read shows text only.`,
      "If you need to inspect it, run bash with `file` or `xxd | head`.",
    );
  }
  // Inside an editor that offers its buffers, the text is the buffer's.
  const content = (await currentContent(ctx, target.real, bytes, target.display))!;
  ctx.files.markRead(target.real, content);
  const { text, encoding } = decodeText(content);
  // The file's language server starts now, so a later edit finds it warm.
  ctx.diagnostics?.opened(target.real, text);
  // Not UTF-8: say so, so the model knows what it sees and that writes keep it.
  const encodingNote = encoding === "utf-8"
    ? ""
    : `\n(${target.display} is decoded from ${
      ENCODING_LABELS[encoding]
    }; edit and write keep that encoding.)`;
  const encodingMetadata = encoding === "utf-8" ? {} : { encoding };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const total = lines.length;
  if (total === 0) {
    return {
      output: `${target.display} is empty (0 lines).${encodingNote}`,
      title: target.display,
      metadata: { lines: 0, ...encodingMetadata },
    };
  }
  const start = input.offset ?? 1;
  if (start > total) {
    throw new ToolError(
      "bad_input",
      `offset ${start} is past the end of ${target.display}, which has ${linesText(total)}.`,
      `Use an offset between 1 and ${total}.`,
    );
  }
  const limit = Math.min(input.limit ?? READ_MAX_LINES, READ_MAX_LINES);
  const window = lines.slice(start - 1, start - 1 + limit);
  const numbered = numberLines(window, start);
  const last = start + numbered.count - 1;
  const footer = last < total
    ? `(lines ${start}-${last} of ${total}; ${total - last} more — call read with offset=${
      last + 1
    } to continue)`
    : start > 1
    ? `(lines ${start}-${last} of ${total}; end of file)`
    : `(end of file, ${linesText(total)})`;
  // read pages by line, never within one: say how to see the rest of a cut line.
  const cutNote = numbered.firstCut === null
    ? ""
    : `\n(Lines over ${READ_MAX_LINE_CHARS} characters are cut. To see more of line ${numbered.firstCut}, run bash: sed -n '${numbered.firstCut}p' ${
      shellQuote(target.display)
    } | cut -c ${READ_MAX_LINE_CHARS + 1}-${READ_MAX_LINE_CHARS * 3})`;
  return {
    output: `${numbered.text}\n\n${footer}${cutNote}${encodingNote}`,
    title: `${target.display} (${start}-${last} of ${total})`,
    metadata: { lines: total, from: start, to: last, more: last < total, ...encodingMetadata },
  };
}

export const readTool = defineTool({
  name: "read",
  description:
    `Read a text file with line numbers (like cat -n), up to ${READ_MAX_LINES} lines per call; ` +
    "when more remains the result says which offset to continue from. Use offset and limit for " +
    "a part of a large file. Reading a file is required before edit or write may change it. " +
    "A directory path lists its entries (folders end with /). Images are described " +
    "(format, size, dimensions); UTF-16 and Latin-1 text is decoded (the result names the " +
    "encoding); other binary files are refused. Line numbers are not part " +
    "of the file: leave them out of edit's old_string.",
  schema: readSchema,

  declare(input, ctx) {
    return fileAccess("read", [resolveToolPath(ctx, input.file_path)]);
  },

  async execute(input, ctx) {
    const target = resolveToolPath(ctx, input.file_path);
    return await withFileErrors(target.display, "read", () => readTarget(target, input, ctx));
  },
});
