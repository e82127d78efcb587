/**
 * Parses the `*** Begin Patch` format into operations, without touching any
 * file. Markers are recognised with surrounding whitespace (models indent
 * them); everything else is exact, and a malformed patch is refused with the
 * patch line number and what was expected there.
 *
 *   *** Begin Patch
 *   *** Add File: path          then lines starting with "+"
 *   *** Delete File: path
 *   *** Update File: path
 *   *** Move to: new/path       optional, right after Update File
 *   @@ optional context line    starts a chunk; " " keep, "-" remove, "+" add
 *   *** End of File             the chunk before it sits at the end of the file
 *   *** End Patch
 */
import { ToolError } from "../tool.ts";

export interface PatchLine {
  kind: "keep" | "remove" | "add";
  text: string;
}

export interface PatchChunk {
  /** The text after "@@", a line to find before the chunk; empty when none. */
  anchor: string;
  lines: PatchLine[];
  /** The chunk must match at the end of the file. */
  endOfFile: boolean;
  /** 1-based patch line where the chunk starts, for error messages. */
  patchLine: number;
}

export type PatchOperation =
  | { kind: "add"; path: string; lines: string[] }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo?: string; chunks: PatchChunk[] };

const MARKER =
  /^\*\*\* (Begin Patch|End Patch|End of File|Add File:|Delete File:|Update File:|Move to:)(.*)$/;

interface Marker {
  name: string;
  argument: string;
}

const FENCE_OPEN = /^\s*```[\w-]*\s*$/;
const FENCE_CLOSE = /^\s*```\s*$/;
/**
 * `apply_patch <<'EOF'`, `cat <<"EOF"`, `<<-EOF`: how models trained to send
 * the patch through a shell open it. Only these commands: anything else
 * before the here-document (a `cd`, a redirection) would change its meaning.
 */
const HEREDOC_OPEN =
  /^\s*(?:(?:apply_patch|applypatch|cat)\s*)?<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1\s*$/;

function markerOf(line: string): Marker | null {
  const match = MARKER.exec(line.trim());
  return match ? { name: match[1], argument: match[2].trim() } : null;
}

function fail(lineNumber: number, message: string, hint?: string): never {
  throw new ToolError(
    "bad_input",
    `Patch line ${lineNumber}: ${message}`,
    hint ??
      "Write the patch as *** Begin Patch, then *** Add File / *** Update File / *** Delete File " +
        "sections, then *** End Patch.",
  );
}

/** The operations in `patch`, in order. Throws ToolError("bad_input") on any malformation. */
export function parsePatch(patch: string): PatchOperation[] {
  const lines = patch.replaceAll("\r\n", "\n").split("\n");
  let first = 0;
  while (first < lines.length && lines[first].trim() === "") first++;
  let last = lines.length - 1;
  while (last >= first && lines[last].trim() === "") last--;
  // A patch sent inside a markdown code fence, or a shell here-document, or
  // both (the fence outside): the wrapper is not part of it.
  const unwrap = (opening: boolean, closing: boolean) => {
    if (!opening || !closing) return;
    first++;
    last--;
    while (first < last && lines[first].trim() === "") first++;
    while (last >= first && lines[last].trim() === "") last--;
  };
  unwrap(FENCE_OPEN.test(lines[first] ?? ""), FENCE_CLOSE.test(lines[last] ?? ""));
  const heredoc = HEREDOC_OPEN.exec(lines[first] ?? "");
  unwrap(heredoc !== null, heredoc !== null && lines[last]?.trim() === heredoc[2]);
  if (markerOf(lines[first] ?? "")?.name !== "Begin Patch") {
    fail(first + 1, "the patch must start with *** Begin Patch.");
  }
  if (last <= first || markerOf(lines[last])?.name !== "End Patch") {
    fail(last + 1, "the patch must end with *** End Patch.");
  }

  const operations: PatchOperation[] = [];
  const seen = new Set<string>();
  const claim = (path: string, at: number) => {
    if (path === "") fail(at, "a file path is missing after the marker.");
    if (seen.has(path)) fail(at, `${path} appears twice; put all its changes in one section.`);
    seen.add(path);
  };

  let i = first + 1;
  while (i < last) {
    const marker = markerOf(lines[i]);
    if (!marker) {
      if (lines[i].trim() === "") {
        i++;
        continue;
      }
      fail(
        i + 1,
        `expected *** Add File, *** Update File or *** Delete File, found "${lines[i]}".`,
      );
    }
    const at = i + 1;
    i++;
    if (marker.name === "Add File:") {
      claim(marker.argument, at);
      const content: string[] = [];
      let bareBlanks = 0; // blank lines without "+": content inside, separators at the end
      while (i < last && (!markerOf(lines[i]) || markerOf(lines[i])?.name === "End of File")) {
        const line = lines[i];
        if (markerOf(line)) {
          i++; // "*** End of File" after an added file says nothing new
          continue;
        }
        if (line.startsWith("+")) {
          content.push(...Array(bareBlanks).fill(""), line.slice(1));
          bareBlanks = 0;
        } else if (line === "") bareBlanks++;
        else fail(i + 1, `every line of an added file starts with "+", found "${line}".`);
        i++;
      }
      operations.push({ kind: "add", path: marker.argument, lines: content });
    } else if (marker.name === "Delete File:") {
      claim(marker.argument, at);
      operations.push({ kind: "delete", path: marker.argument });
    } else if (marker.name === "Update File:") {
      claim(marker.argument, at);
      let moveTo: string | undefined;
      const next = markerOf(lines[i] ?? "");
      if (i < last && next?.name === "Move to:") {
        moveTo = next.argument;
        claim(moveTo, i + 1);
        i++;
      }
      const { chunks, end } = parseChunks(lines, i, last, moveTo !== undefined);
      i = end;
      if (chunks.length === 0 && moveTo === undefined) {
        fail(
          at,
          `*** Update File: ${marker.argument} has no changes.`,
          "Add @@ chunks with -/+ lines.",
        );
      }
      operations.push({ kind: "update", path: marker.argument, moveTo, chunks });
    } else {
      fail(at, `*** ${marker.name} is not expected here.`);
    }
  }
  if (operations.length === 0) fail(first + 1, "the patch changes no file.");
  return operations;
}

/**
 * The chunks of one Update File section. `renames`: the section moves the
 * file, so a chunk of context only is a check that the file is the one
 * meant, not a mistake.
 */
function parseChunks(
  lines: string[],
  start: number,
  last: number,
  renames: boolean,
): { chunks: PatchChunk[]; end: number } {
  const chunks: PatchChunk[] = [];
  let current: PatchChunk | undefined;
  let i = start;
  for (; i < last; i++) {
    const line = lines[i];
    const marker = markerOf(line);
    if (marker?.name === "End of File") {
      if (!current) fail(i + 1, "*** End of File must follow a chunk.");
      current.endOfFile = true;
      current = undefined;
      continue;
    }
    if (marker) break;
    if (line.trim().startsWith("@@")) {
      current = {
        anchor: line.trim().slice(2).trim(),
        lines: [],
        endOfFile: false,
        patchLine: i + 1,
      };
      // "@@ -12,5 +12,6 @@" (a unified-diff header) carries no anchor text.
      if (/^-\d+(,\d+)? \+\d+(,\d+)? @@/.test(current.anchor)) current.anchor = "";
      chunks.push(current);
      continue;
    }
    if (!current) {
      current = { anchor: "", lines: [], endOfFile: false, patchLine: i + 1 };
      chunks.push(current);
    }
    if (line.startsWith(" ")) current.lines.push({ kind: "keep", text: line.slice(1) });
    else if (line.startsWith("-")) current.lines.push({ kind: "remove", text: line.slice(1) });
    else if (line.startsWith("+")) current.lines.push({ kind: "add", text: line.slice(1) });
    else if (line === "") current.lines.push({ kind: "keep", text: "" });
    else {
      fail(
        i + 1,
        `a chunk line starts with " ", "-" or "+", found "${line}".`,
        "Prefix unchanged lines with a space, removed lines with -, added lines with +.",
      );
    }
  }
  for (const chunk of chunks) {
    // Blank context lines at a chunk's end are usually separators between chunks.
    while (
      chunk.lines.length && chunk.lines[chunk.lines.length - 1].kind === "keep" &&
      chunk.lines[chunk.lines.length - 1].text === "" && !chunk.endOfFile
    ) {
      chunk.lines.pop();
    }
  }
  // Blank lines outside any @@ chunk (after *** End of File, before the first
  // @@) made a chunk of nothing: they separate, they do not ask for anything.
  const kept = chunks.filter((chunk) => chunk.anchor !== "" || chunk.lines.length > 0);
  for (const chunk of kept) {
    if (!renames && !chunk.lines.some((line) => line.kind !== "keep")) {
      fail(chunk.patchLine, "this chunk changes nothing (no - or + lines).");
    }
  }
  return { chunks: kept, end: i };
}
