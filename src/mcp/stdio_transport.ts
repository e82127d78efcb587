/**
 * MCP over a child process's stdin/stdout, started through lib/spawn.ts.
 * skiff uses its own rather than the SDK's so that the child's environment
 * is exactly the one built for it (nothing inherited), and so that starting
 * a server reads no environment variable the engine's Worker may not read.
 */
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import { LineSplitter, MAX_LINE_CHARS } from "../lib/line_reader.ts";
import { ProgramUnavailable, spawn } from "../lib/spawn.ts";

// The SDK's subpath exports carry no usable types under Deno; these are the
// parts of its Transport contract the Client uses.
type Message = Record<string, unknown>;

export interface StdioServerOptions {
  command: string;
  args: string[];
  /** The child's whole environment; nothing else is inherited. */
  env: Record<string, string>;
  cwd?: string;
  /**
   * Start it through the OS sandbox: the launcher wraps the command line as
   * it wraps bash's, and the server's own `env` is set inside.
   */
  sandbox?: {
    launcher: () => Promise<ProcessLauncher | string>;
    cwd: string;
    own: Record<string, string>;
  };
  /** Each chunk the server writes to stderr. */
  onStderr?: (text: string) => void;
}

/** How long a server gets to exit after its stdin closes, then after SIGTERM. */
const EXIT_GRACE_MS = 2000;

export class StdioTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: Message) => void;
  private child?: Deno.ChildProcess;
  private writer?: WritableStreamDefaultWriter<Uint8Array>;
  private finished = false;
  private readonly encoder = new TextEncoder();

  constructor(private readonly options: StdioServerOptions) {}

  get pid(): number | undefined {
    return this.finished ? undefined : this.child?.pid;
  }

  /** Needs --allow-run for the command (and for the sandbox launcher, when sandboxed). */
  async start(): Promise<void> {
    const started = await this.spawnArguments();
    try {
      this.child = spawn(started.program, {
        args: started.args,
        env: started.env,
        cwd: started.cwd,
        stdin: "piped",
      });
    } catch (error) {
      if (error instanceof ProgramUnavailable && error.reason === "missing") {
        throw new Error(`command not found: ${started.program}; check "command" and PATH`);
      }
      throw error;
    }
    this.writer = this.child.stdin.getWriter();
    this.readMessages(this.child.stdout);
    this.readStderr(this.child.stderr);
    this.child.status.then(() => this.finish(), () => this.finish());
  }

  /** The program to spawn: the server itself, or the sandbox launcher around it. */
  private async spawnArguments(): Promise<
    { program: string; args: string[]; env: Record<string, string>; cwd?: string }
  > {
    const { command, args, env, cwd, sandbox } = this.options;
    if (!sandbox) return { program: command, args, env, cwd };
    const launcher = await sandbox.launcher();
    if (typeof launcher === "string") {
      throw new Error(
        `it asks for "sandbox": true and cannot be sandboxed here (${launcher}); it is not started unsandboxed`,
      );
    }
    // The launcher sets only its allowlist inside; the server's own env is
    // set by `env`, then the server replaces the shell.
    const own = Object.entries(sandbox.own).map(([name, value]) => shellQuote(`${name}=${value}`));
    const line = ["exec", "env", ...own, "--", ...[command, ...args].map(shellQuote)].join(" ");
    const prepared = await launcher.prepare(line, sandbox.cwd);
    return { program: prepared.argv[0], args: prepared.argv.slice(1), env: prepared.env };
  }

  async send(message: Message): Promise<void> {
    if (!this.writer || this.finished) throw new Error("the server process is not running");
    await this.writer.write(this.encoder.encode(JSON.stringify(message) + "\n"));
  }

  /** Closes stdin, then SIGTERM, then SIGKILL, each after a grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.finished) return;
    try {
      await this.writer?.close();
    } catch {
      // The process may already be gone.
    }
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await exitsWithin(child, EXIT_GRACE_MS)) break;
      try {
        child.kill(signal);
      } catch {
        break;
      }
    }
    await child.status;
    this.finish();
  }

  private async readMessages(stream: ReadableStream<Uint8Array>): Promise<void> {
    // Linear however the server cuts its output, and bounded: a line past the bound is dropped.
    const lines = new LineSplitter(MAX_LINE_CHARS, (bound) =>
      this.onerror?.(
        new Error(
          `the server sent a line longer than ${bound} characters; it was dropped (not a message).`,
        ),
      ));
    try {
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        for (const raw of lines.push(text)) {
          const line = raw.replace(/\r$/, "");
          if (!line.trim()) continue;
          try {
            this.onmessage?.(deserializeMessage(line) as Message);
          } catch (error) {
            // A server printing logs to stdout: not a message, not fatal.
            this.onerror?.(error as Error);
          }
        }
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private async readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        this.options.onStderr?.(text);
      }
    } catch {
      // Stderr is only for explaining failures; losing it loses nothing else.
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.onclose?.();
  }
}

async function exitsWithin(child: Deno.ChildProcess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([child.status.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One shell word holding exactly `text`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
