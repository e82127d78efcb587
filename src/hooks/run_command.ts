/**
 * One hook command run to its end, the way the bash tool runs a command:
 * through a `ProcessLauncher` (the session's sandbox, or the user's own
 * rights when the user said so), with the command guard around it, its JSON
 * input on stdin, and a timeout that stops it. What it wrote comes back
 * whole up to a bound; it never throws, so a broken hook cannot break a run.
 */
import { backgroundDelay } from "../lib/background_ticks.ts";
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import { spawn } from "../lib/spawn.ts";
import { shellQuote } from "../permission/hints.ts";

/** How one hook command ended. */
export interface HookProcess {
  /** Its exit status; null when it was stopped or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not be started at all. */
  startError?: string;
  durationMs: number;
}

export interface HookCommandOptions {
  launcher: ProcessLauncher;
  command: string;
  /** The workspace: the command's folder and `$CLAUDE_PROJECT_DIR`. */
  workspace: string;
  /** The JSON written to its stdin. */
  input: string;
  timeoutMs: number;
  /** Stops it with the session. */
  signal?: AbortSignal;
  clock?: () => number;
}

/** More than a hook should ever print; the rest is cut with a mark. */
const MAX_OUTPUT_CHARS = 32_000;
/** How long a stopped hook's streams are waited for before they are left behind. */
const STOP_GRACE_MS = 2_000;

/** Runs one hook command. Needs --allow-run for the launcher's program. */
export async function runHookCommand(options: HookCommandOptions): Promise<HookProcess> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  // Claude Code's variable, and skiff's own name for the same folder.
  const line =
    `CLAUDE_PROJECT_DIR=${shellQuote(options.workspace)}; SKIFF_PROJECT_DIR=$CLAUDE_PROJECT_DIR; ` +
    `export CLAUDE_PROJECT_DIR SKIFF_PROJECT_DIR\n${options.command}`;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // The guard reverts what the command changed among files that run code later.
  const guardCheck = options.launcher.guard?.before();
  let timedOut = false;
  try {
    const prepared = await options.launcher.prepare(line, options.workspace);
    const child = spawn(prepared.argv[0], {
      args: prepared.argv.slice(1),
      cwd: options.workspace,
      env: prepared.env,
      stdin: "piped",
      newGroup: true,
      signal: stop.signal,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, options.timeoutMs);
    const writing = writeInput(child.stdin, options.input);
    const stdout = readBounded(child.stdout);
    const stderr = readBounded(child.stderr);
    const done = Promise.all([child.status, stdout, stderr]);
    let result: Awaited<typeof done> | undefined;
    try {
      result = await Promise.race([done, stopped(stop.signal).then(() => undefined)]);
      // Stopped: what it printed so far, if its streams close soon.
      result ??= await Promise.race([done, backgroundDelay(STOP_GRACE_MS).then(() => undefined)]);
    } finally {
      clearTimeout(timer);
      await writing;
    }
    return {
      code: stop.signal.aborted ? null : result?.[0].code ?? null,
      stdout: result?.[1] ?? "",
      stderr: result?.[2] ?? "",
      timedOut,
      durationMs: clock() - started,
    };
  } catch (error) {
    return {
      code: null,
      stdout: "",
      stderr: "",
      timedOut,
      startError: error instanceof Error ? error.message : String(error),
      durationMs: clock() - started,
    };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    guardCheck?.();
  }
}

async function writeInput(stream: WritableStream<Uint8Array>, text: string): Promise<void> {
  const writer = stream.getWriter();
  try {
    await writer.write(new TextEncoder().encode(text));
    await writer.close();
  } catch {
    // The hook did not read its input: that is its own affair.
  }
}

function stopped(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

/**
 * The stream's text up to the bound; the rest is read and dropped, so the
 * hook never blocks on a full pipe and never fills skiff's memory.
 */
async function readBounded(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let dropped = 0;
  try {
    for await (const chunk of stream) {
      if (text.length < MAX_OUTPUT_CHARS) text += decoder.decode(chunk, { stream: true });
      else dropped += chunk.byteLength;
    }
  } catch {
    // The stream broke off (the hook was stopped): keep what came.
  }
  if (text.length > MAX_OUTPUT_CHARS) {
    dropped += text.length - MAX_OUTPUT_CHARS;
    text = text.slice(0, MAX_OUTPUT_CHARS);
  }
  return dropped ? `${text}\n… (cut: about ${dropped} more bytes)` : text;
}
