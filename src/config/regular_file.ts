/**
 * Reads a text file skiff takes in at start (AGENTS.md, agent and skill
 * files) only when it is a regular file, and only up to a size. A project
 * decides what those paths are: a FIFO there would block the read until some
 * writer came (skiff hung at start), a device could stream without end, and a
 * huge file would fill the prompt. Such an entry is skipped with a reason the
 * caller turns into a warning naming it.
 */

import { isWithin } from "../sandbox/paths.ts";

/** Bytes read of one instruction file; the rest is left out with a warning. */
export const MAX_INSTRUCTION_BYTES = 256 * 1024;

/** Bytes a config file (config.json, .mcp.json) may hold. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export type RegularFileRead =
  | { kind: "missing" }
  | { kind: "skipped"; reason: string }
  | { kind: "text"; text: string; cut: boolean; size: number; maxBytes: number };

/** What a stat says an entry is, in words, for one that is not a regular file. */
function entryKind(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "not a regular file";
}

/**
 * The text of `file` (links followed) when it is a regular file, its first
 * `maxBytes` when longer (`cut`), else why it was skipped. The opened file is
 * checked again, so an entry swapped after the first look is not read.
 * Needs --allow-read on `file`.
 */
export function readRegularTextFileSync(
  file: string,
  maxBytes: number = MAX_INSTRUCTION_BYTES,
): RegularFileRead {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    throw error;
  }
  if (!info.isFile) {
    return { kind: "skipped", reason: `it is ${entryKind(info)}, not a regular file` };
  }
  using handle = Deno.openSync(file, { read: true });
  const opened = handle.statSync();
  if (!opened.isFile || opened.ino !== info.ino || opened.dev !== info.dev) {
    return { kind: "skipped", reason: "it was replaced between the check and the read" };
  }
  const buffer = new Uint8Array(Math.min(opened.size, maxBytes));
  let filled = 0;
  while (filled < buffer.length) {
    const read = handle.readSync(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  const text = new TextDecoder().decode(buffer.subarray(0, filled));
  return { kind: "text", text, cut: opened.size > maxBytes, size: opened.size, maxBytes };
}

/** The warning for an instruction file that was skipped or cut. */
export function instructionFileWarning(file: string, read: RegularFileRead): string | null {
  if (read.kind === "skipped") {
    return `${file} was not read: ${read.reason}. Make it a regular file, or remove it.`;
  }
  if (read.kind === "text" && read.cut) {
    return `${file} holds ${read.size} bytes: only its first ${read.maxBytes} are used. ` +
      "Shorten it.";
  }
  return null;
}

/**
 * The whole text of `file` when it is a regular file within `maxBytes`;
 * otherwise an Error saying why (a NotFound one when absent), for loaders
 * that turn a failed read into a warning and skip the file.
 */
export function readRegularTextOrThrow(
  file: string,
  maxBytes: number = MAX_INSTRUCTION_BYTES,
): string {
  const read = readRegularTextFileSync(file, maxBytes);
  if (read.kind === "missing") throw new Deno.errors.NotFound(`${file} does not exist`);
  if (read.kind === "skipped") throw new Error(read.reason);
  if (read.cut) {
    throw new Error(`it holds ${read.size} bytes, more than the ${maxBytes} skiff reads`);
  }
  return read.text;
}

/** A config file's text, read as `readRegularTextOrThrow` does, for the async config loader. */
export function readConfigText(file: string): Promise<string> {
  return Promise.resolve().then(() => readRegularTextOrThrow(file, MAX_CONFIG_BYTES));
}

/**
 * Where a file the project ships really is, when that lies inside `root` (a
 * real path: the git root or the workspace); null when it leads out, or does
 * not resolve. The repository decides what its AGENTS.md or command files
 * are, so a link to `~/.ssh/id_rsa` would otherwise put the key in a prompt
 * unasked. Read the path returned, so a link swapped in after this check is
 * not followed. Needs --allow-read on `file`.
 */
export function realPathInside(file: string, root: string): string | null {
  let real: string;
  try {
    real = Deno.realPathSync(file);
  } catch {
    return null;
  }
  return isWithin(root, real) ? real : null;
}
