/**
 * The prompt of `skiff run`: its arguments, and what is piped on stdin.
 * `git diff | skiff run "review this change"` sends the argument followed by
 * the piped text in a fenced block headed with its size; with no argument
 * (or `-`) the piped text is the prompt. A terminal on stdin is never read
 * (nobody is typing a prompt there), an empty stdin (`</dev/null`) adds
 * nothing, and stdin that is too large or not text is refused before the
 * model is paid for, saying what to do instead.
 */
import { UsageError } from "./exit_codes.ts";
import { fencedBlock } from "../lib/markdown_fence.ts";

/** The most piped stdin a prompt takes (about 64,000 tokens of text). */
export const STDIN_LIMIT_BYTES = 256 * 1024;

/** After this long with nothing read, say what skiff is waiting for. */
const WAIT_NOTICE_MS = 3_000;

export interface PromptInputOptions {
  /** @default Deno.stdin */
  stdin?: { isTerminal(): boolean; readable: ReadableStream<Uint8Array> };
  /** @default STDIN_LIMIT_BYTES */
  limitBytes?: number;
  /** Where notes for the person go (stderr); none with --quiet. */
  notice?: (text: string) => void;
  /** @default 3000 */
  waitNoticeMs?: number;
}

const SAVE_INSTEAD =
  'Save it to a file in the workspace and name the file in the prompt (skiff run "review the change in change.diff"): the agent reads it in parts.';

/** `2.3 KB`, `812 bytes`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What was read: at most one byte over the limit (reading stops there). */
interface Read {
  bytes: Uint8Array;
  over: boolean;
}

function joined(chunks: Uint8Array[], total: number, limit: number): Read {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, over: total > limit };
}

/** What `readStdinNow` asks of the system; a test's fakes replace it. */
export interface StdinNow {
  stat(path: string): Pick<Deno.FileInfo, "isFile" | "isCharDevice" | "rdev">;
  read(buffer: Uint8Array): number | null;
}

const SYSTEM: StdinNow = {
  stat: (path) => Deno.statSync(path),
  read: (buffer) => Deno.stdin.readSync(buffer),
};

/**
 * Whether `info` is the null device: a character device with /dev/null's
 * device number (`stat` is asked for /dev/null's).
 */
export function isNullDevice(
  info: Pick<Deno.FileInfo, "isCharDevice" | "rdev">,
  stat: (path: string) => Pick<Deno.FileInfo, "rdev">,
): boolean {
  return info.isCharDevice === true && info.rdev !== null && info.rdev === stat("/dev/null").rdev;
}

/**
 * Stdin read whole at once when no read of it can wait: a regular file
 * (`<notes.md`) or the null device (`</dev/null`, what a CI runner often
 * gives). Undefined for a pipe, a socket or any other device: those are read
 * as a stream, with the notice when nothing comes. Read this way, a start
 * loads neither Deno's streams nor its timers (docs/performance.md).
 */
export function readStdinNow(limit: number, system: StdinNow = SYSTEM): Read | undefined {
  try {
    const info = system.stat("/dev/stdin");
    if (!info.isFile && !isNullDevice(info, system.stat)) return undefined;
  } catch {
    return undefined; // no /dev/stdin (Windows): read as a stream
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (total <= limit) {
    const count = system.read(buffer);
    if (count === null || count === 0) break;
    chunks.push(buffer.slice(0, count));
    total += count;
  }
  return joined(chunks, total, limit);
}

/** Everything piped, up to one byte over the limit (then reading stops). */
async function readPiped(
  readable: ReadableStream<Uint8Array>,
  limit: number,
  onWaiting: () => void,
  waitMs: number,
): Promise<Read> {
  const reader = readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const timer = setTimeout(onWaiting, waitMs);
  try {
    while (total <= limit) {
      const { value, done } = await reader.read();
      clearTimeout(timer);
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } finally {
    clearTimeout(timer);
    if (total > limit) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return joined(chunks, total, limit);
}

/** The piped bytes as text, or a usage error saying why they are not. */
function pipedText(bytes: Uint8Array, over: boolean, limit: number): string {
  if (over) {
    throw new UsageError(
      `piped stdin is larger than ${
        formatSize(limit)
      }, the most skiff adds to a prompt. ${SAVE_INSTEAD}`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    text = "\0";
  }
  if (text.includes("\0")) {
    throw new UsageError(
      `piped stdin (${
        formatSize(bytes.length)
      }) is not text (it is not UTF-8, or holds NUL bytes), and a prompt is text. ${SAVE_INSTEAD}`,
    );
  }
  return text;
}

/** `text` in a fenced block whose fence no run of backticks inside it can close. */
export function fencedStdin(text: string, bytes: number): string {
  const body = text.replace(/(?:\r?\n)+$/, "");
  const lines = body.split("\n").length;
  const size = `${formatSize(bytes)}, ${lines} line${lines === 1 ? "" : "s"}`;
  return `Piped to skiff on stdin (${size}):\n${fencedBlock(body)}`;
}

/**
 * The prompt: the arguments, with piped stdin appended; or piped stdin alone
 * when there are no arguments or the one argument `-`.
 */
export async function readPrompt(
  args: string[],
  options: PromptInputOptions = {},
): Promise<string> {
  const stdin = options.stdin ?? Deno.stdin;
  const fromArgs = args.join(" ").trim();
  const stdinIsPrompt = fromArgs === "" || fromArgs === "-";
  if (stdin.isTerminal()) {
    if (!stdinIsPrompt) return fromArgs;
    throw new UsageError(
      'no prompt. Pass it as an argument (skiff run "fix the failing test") or pipe it on stdin.',
    );
  }
  const limit = options.limitBytes ?? STDIN_LIMIT_BYTES;
  const notice = options.notice ?? (() => {});
  // The process's own stdin, when it is a file or /dev/null: read at once, no stream.
  const now = stdin === Deno.stdin ? readStdinNow(limit) : undefined;
  const { bytes, over } = now ?? await readPiped(
    stdin.readable,
    limit,
    () =>
      notice(
        "skiff: waiting for piped stdin to end (it becomes part of the prompt); run with </dev/null if there is nothing to add.",
      ),
    options.waitNoticeMs ?? WAIT_NOTICE_MS,
  );
  const text = pipedText(bytes, over, limit);
  if (stdinIsPrompt) {
    if (!text.trim()) {
      throw new UsageError(
        'the prompt read from stdin is empty. Pipe some text in, or pass the prompt as an argument (skiff run "fix the failing test").',
      );
    }
    return text.trim();
  }
  if (!text.trim()) return fromArgs;
  notice(`skiff: added piped stdin (${formatSize(bytes.length)}) to the prompt.`);
  return `${fromArgs}\n\n${fencedStdin(text, bytes.length)}`;
}
