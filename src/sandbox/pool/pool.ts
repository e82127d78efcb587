/**
 * A sandbox that stays up for the session: starting bubblewrap with skiff's
 * arguments costs a start per command (docs/performance.md); a command in one
 * that is already up costs one fork and its shell inside
 * (docs/performance.md). The pool holds sandboxes built with exactly the
 * per-command bwrap argv (same mounts, hidden paths, namespaces, network
 * setting, no capabilities, environment), one per concurrently running
 * command: each command leases one for itself; its holder (pid 1) runs the
 * command, and when it ends kills every process it started, and empties the
 * private temp folders before the next lease (sandbox/bwrap/pool_steps.ts says how).
 * One pool serves one `SandboxSettings`.
 *
 * A sandbox's processes are capped as one bwrap per command caps them: a
 * `pids` cgroup where one can be written (skiff as root, or a delegated
 * cgroup v2), else the holder's RLIMIT_NPROC when skiff is not root. Where
 * more commands run at once than `maxSandboxes`, or the caller does not
 * lease (an MCP server; only the bash tool and the background table do),
 * the launcher falls back to one bwrap per command — never to no sandbox.
 *
 * The same pool drives the Landlock backend's holders (sandbox/landlock/session.ts
 * gives it their `SandboxStarter`): a holder there is started by the exec
 * step and speaks the same protocol; what stands in for the namespaces is
 * in sandbox/landlock/pool_steps.ts.
 *
 * Needs `--allow-run=sh` (the start step execs bwrap).
 */
import { bwrapArgs } from "../bwrap/bwrap.ts";
import { lineReader } from "../../lib/line_reader.ts";
import { spawn } from "../../lib/spawn.ts";
import type { AttachedRun } from "../../contracts/process_launcher.ts";
import {
  commandCd,
  entriesHoldingMounts,
  foldersToClean,
  HOLDER_SCRIPT,
  POOL_START_STEP,
  runRequest,
} from "../bwrap/pool_steps.ts";
import type { HiddenMount } from "../hidden.ts";
import { DEFAULT_LIMITS, nprocStep } from "../limits.ts";
import type { SandboxSettings } from "../modes.ts";

/**
 * How one kind of sandbox starts: bubblewrap (the default, `bwrapStarter`)
 * or the Landlock holder (sandbox/landlock/session.ts). Either way a holder speaking
 * the protocol of sandbox/bwrap/pool_steps.ts runs inside, prints `ready` on stdout
 * once it is up, and ends when its stdin ends.
 */
export interface SandboxStarter {
  /** What a sandbox started now for `env` is started with; one started with other arguments is not reused. */
  argsFor(env: Record<string, string>): string[];
  /**
   * The process that starts a sandbox with `args`, and its whole
   * environment; `stop`, where given, ends the sandbox with every process it
   * started (else killing that process does).
   */
  command(args: string[]): {
    argv: string[];
    env: Record<string, string>;
    /** Given the started process's pid. */
    stop?: (pid: number) => Promise<void>;
  };
  /** Whether the lines before `ready` on stdout show a sandbox that is up. */
  started(info: string): boolean;
}

export interface PoolOptions {
  /** How its sandboxes start: `bwrapStarter`, or the Landlock holder's (sandbox/landlock/session.ts). */
  starter: SandboxStarter;
  /** At most this many sandboxes at once; more concurrent commands get a sandbox of their own. @default 4 */
  maxSandboxes?: number;
  /**
   * Called once when the pool's first sandbox did not start (bubblewrap
   * failed, or the process cap could not be set up): a probe's answer kept
   * from an earlier start may be wrong here.
   */
  onStartFailed?: () => void;
}

/** What bubblewrap's sandboxes are started with (`bwrapStarter`). */
export interface BwrapStartOptions {
  bwrapPath: string;
  /** The command shell (shell.ts). */
  shell: string;
  /** The holder's shell, when it is a multi-call binary the command shell instead. @default "/bin/sh" */
  holderShell?: string;
  root: boolean;
  hidden: readonly HiddenMount[];
}

export interface Sandbox {
  child: Deno.ChildProcess;
  /** The bwrap arguments it was started with, to tell whether its mounts are still right. */
  key: string;
  state: "free" | "leased" | "cleaning" | "dead";
  /** Writes one request to the holder. */
  tell(request: string): void;
  /** Ends the sandbox: its holder's input, then it and every process in it. */
  end(): Promise<void>;
  /** Resolves once it is gone and the command it ran (if any) has its exit. */
  gone: Promise<void>;
  /** Resolves at the holder's next `clean`. */
  nextClean(): Promise<void>;
  /** While cleaning: resolves once it is free again (or dead). */
  freed: Promise<void>;
  /** The command running in it, until its end mark and status are both in. */
  running: Running | null;
}

/** One command in a sandbox, as the holder reports it. */
interface Running {
  start: Uint8Array;
  end: Uint8Array;
  onOutput(bytes: Uint8Array): void;
  /** Its start mark was seen: what follows is its output. */
  started: boolean;
  /** Its end mark was seen: its status follows. */
  outputEnded: boolean;
  stopped: boolean;
  finish(exit: { code: number; strayStopped: boolean }): void;
}

/** How long a command waits for a sandbox being emptied before it starts another. */
const CLEAN_WAIT_MS = 250;

/** Why the pool cannot be used here; set once, after the first start. */
type Availability = { usable: true } | { usable: false; reason: string };

export class SandboxPool {
  readonly #options: PoolOptions;
  readonly #sandboxes = new Set<Sandbox>();
  #starting = 0;
  /** Starts begun by `warm`, by key: a command that comes for one waits for it. */
  readonly #warming = new Map<string, Promise<void>>();
  #availability: Availability | null = null;
  #closed = false;

  constructor(options: PoolOptions) {
    this.#options = options;
  }

  /** Null until a first sandbox was tried; then whether the pool works here. */
  get availability(): Availability | null {
    return this.#availability;
  }

  /** How many sandboxes are up (for tests and the bench). */
  get size(): number {
    return [...this.#sandboxes].filter((box) => box.state !== "dead").length;
  }

  /** True when no command holds a sandbox and none is being cleaned or started. */
  idle(): Promise<boolean> {
    const busy = [...this.#sandboxes].some((box) =>
      box.state === "leased" || box.state === "cleaning"
    );
    return Promise.resolve(!busy && this.#starting === 0);
  }

  /**
   * A command with `env` is coming: starts a sandbox for it now, without
   * waiting, unless one is free, being emptied or already starting for it,
   * so that its start runs beside the policy's work and the undo snapshot.
   * The command's `acquire` takes it (or, should its mounts have changed
   * meanwhile, discards it and starts another).
   */
  warm(env: Record<string, string>): void {
    if (this.#closed || this.#availability?.usable === false) return;
    const args = this.#options.starter.argsFor(env);
    const key = JSON.stringify(args);
    if (this.#warming.has(key)) return;
    for (const box of this.#sandboxes) {
      if (box.key === key && (box.state === "free" || box.state === "cleaning")) return;
    }
    if (this.size + this.#starting >= (this.#options.maxSandboxes ?? 4)) return;
    this.#starting++;
    const warming = this.#start(args, key).then(async (box) => {
      if (!box) return;
      if (!this.#closed) return void this.#sandboxes.add(box);
      // The session closed while it started: it ends here, and close() waits for that.
      box.state = "dead";
      box.child.ref(); // So close()'s wait holds the event loop.
      await box.end();
      await box.gone;
    }).catch(() => {
      // Not started (no bwrap to run): the command's own acquire tries again and says why.
    }).finally(() => {
      this.#starting--;
      this.#warming.delete(key);
    });
    this.#warming.set(key, warming);
  }

  /**
   * A free sandbox for a command with `env`, started if none is; null when
   * the pool cannot be used here or is full (the caller then runs one bwrap
   * for the command).
   */
  async acquire(env: Record<string, string>): Promise<Sandbox | null> {
    if (this.#closed || this.#availability?.usable === false) return null;
    // The mounts and environment a bwrap of its own would get now: a
    // repository or a protected path made since a sandbox started is bound
    // in a new one only.
    const args = this.#options.starter.argsFor(env);
    const key = JSON.stringify(args);
    await this.#warming.get(key);
    for (let waited = false;; waited = true) {
      for (const box of this.#sandboxes) {
        if (box.state === "free" && box.key !== key) this.#discard(box);
        else if (box.state === "free") {
          box.state = "leased";
          return box;
        }
      }
      // One being emptied after its last command is ready in a moment; a new one takes a start.
      // Not for long, though: a huge /tmp takes its time to empty.
      const cleaning = [...this.#sandboxes].filter((box) => box.state === "cleaning");
      if (cleaning.length === 0 || waited) break;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        ...cleaning.map((box) => box.freed),
        new Promise((resolve) => timer = setTimeout(resolve, CLEAN_WAIT_MS)),
      ]);
      clearTimeout(timer);
    }
    if (this.size + this.#starting >= (this.#options.maxSandboxes ?? 4)) return null;
    this.#starting++;
    try {
      const box = await this.#start(args, key);
      if (!box) return null;
      if (this.#closed) {
        box.state = "dead";
        void box.end();
        return null;
      }
      box.state = "leased";
      this.#sandboxes.add(box);
      return box;
    } finally {
      this.#starting--;
    }
  }

  /** The command of this lease has ended (every process of it is gone): clean, then free. */
  release(box: Sandbox): void {
    if (box.state !== "leased" || box.running) return;
    box.state = "cleaning";
    box.freed = box.nextClean().then(() => {
      if (box.state === "cleaning") box.state = "free";
    });
    box.tell("\n");
  }

  /**
   * Runs `script` with the command shell in leased `box`, in `cwd`: the
   * holder starts it inside, `onOutput` gets its stdout and stderr merged, in
   * order. Null when the script cannot be sent (it holds a NUL byte).
   * `stop()` kills the sandbox and with it every process of the command at
   * once (status 143); a sandbox that dies under a command reports 125.
   */
  run(
    box: Sandbox,
    script: string,
    cwd: string,
    onOutput: (bytes: Uint8Array) => void,
  ): AttachedRun | null {
    const inner = commandCd(cwd) + script;
    const token = crypto.randomUUID();
    const request = runRequest(token, inner);
    if (request === null || box.running) return null;
    const encoder = new TextEncoder();
    let finish!: (exit: { code: number; strayStopped: boolean }) => void;
    const done = new Promise<{ code: number; strayStopped: boolean }>((resolve) => {
      finish = resolve;
    });
    const running: Running = {
      start: encoder.encode(`${token}<`),
      end: encoder.encode(`${token}>`),
      onOutput,
      started: false,
      outputEnded: false,
      stopped: false,
      finish: (exit) => {
        if (box.running === running) {
          box.running = null;
          box.child.unref();
        }
        finish(exit);
      },
    };
    if (box.state === "dead") {
      onOutput(encoder.encode(GONE));
      running.finish({ code: 125, strayStopped: false });
    } else {
      box.running = running;
      // A running command keeps skiff's event loop alive, as a child process would.
      box.child.ref();
      box.tell(request);
    }
    return {
      done,
      stop: () => {
        if (box.running !== running) return;
        running.stopped = true;
        this.#discard(box);
      },
    };
  }

  /** Stops every sandbox (each also dies with skiff: `--die-with-parent`, and its holder's stdin closing). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#warming.values());
    const boxes = [...this.#sandboxes];
    this.#sandboxes.clear();
    const ended = boxes.map((box) => {
      box.state = "dead";
      box.child.ref(); // So the wait below holds the event loop.
      return box.end();
    });
    await Promise.all([...ended, ...boxes.map((box) => box.gone)]);
  }

  #discard(box: Sandbox): void {
    box.state = "dead";
    this.#sandboxes.delete(box);
    void box.end();
  }

  async #start(args: string[], key: string): Promise<Sandbox | null> {
    const { argv, env, stop } = this.#options.starter.command(args);
    const child = spawn(argv[0], { args: argv.slice(1), cwd: "/", env, stdin: "piped" });
    const lines = lineReader(child.stdout);
    // Until the sandbox is up, what bwrap says on stderr is kept for the
    // reason of a failed start; then stderr carries the commands' output.
    const output = new OutputDemux();
    const pumped = output.pump(child.stderr);
    let info = "";
    let line: string | null;
    while ((line = await lines.next()) !== null && line !== "ready") info += line;
    if (line !== "ready" || !this.#options.starter.started(info)) {
      await stop?.(child.pid);
      try {
        child.kill("SIGKILL");
      } catch {
        // Gone.
      }
      await child.status.catch(() => {});
      await pumped;
      const said = output.startErrors().trim() || info || "no reason given";
      if (this.#availability === null) this.#options.onStartFailed?.();
      this.#availability ??= { usable: false, reason: `the sandbox did not start: ${said}` };
      return null;
    }
    this.#availability ??= { usable: true };
    const writer = child.stdin.getWriter();
    const encoder = new TextEncoder();
    const waiting: (() => void)[] = [];
    const box: Sandbox = {
      child,
      key,
      state: "free",
      tell: (request) => void writer.write(encoder.encode(request)).catch(() => {}),
      end: () => {
        void writer.close().catch(() => {});
        if (stop) return stop(child.pid);
        try {
          child.kill("SIGKILL");
        } catch {
          // Gone already.
        }
        return Promise.resolve();
      },
      gone: Promise.resolve(),
      nextClean: () => new Promise<void>((resolve) => waiting.push(resolve)),
      freed: Promise.resolve(),
      running: null,
    };
    output.box = box;
    (async () => {
      while ((line = await lines.next()) !== null) {
        if (line === "clean") waiting.shift()?.();
      }
    })();
    box.gone = child.status.then(async () => {
      // Whatever it left (its holder killed under it) goes with it.
      if (box.state !== "dead") await stop?.(child.pid);
      box.state = "dead";
      this.#sandboxes.delete(box);
      for (const resolve of waiting.splice(0)) resolve();
      await pumped;
      // Whatever the command wrote before the sandbox went is delivered first.
      const running = box.running;
      if (!running) return;
      if (running.stopped) return running.finish({ code: 143, strayStopped: false });
      running.onOutput(encoder.encode(GONE));
      running.finish({ code: 125, strayStopped: false });
    });
    // The session may end with sandboxes up: they must not keep skiff running.
    child.unref();
    return box;
  }
}

/**
 * bubblewrap: the step that makes the sandbox's `pids` cgroup (as root)
 * execs bwrap with the per-command argv, the holder copied in as an
 * unreadable file and run as pid 1; `--info-fd` reports its pid.
 */
export function bwrapStarter(
  settings: SandboxSettings,
  options: BwrapStartOptions,
): SandboxStarter {
  const limits = settings.limits ?? DEFAULT_LIMITS;
  return {
    // Every command cds to its own folder; the holder works in "/", since the
    // writable root may be one file (a batch task that owns a file).
    argsFor: (env) =>
      bwrapArgs(settings, "/", env, {
        root: options.root,
        hidden: options.hidden,
        tmpMB: limits.tmpMB,
      }),
    command(args) {
      const holder = `/run/skiff-holder-${crypto.randomUUID()}`;
      const argv = [
        "sh",
        "-c",
        POOL_START_STEP,
        "skiff-pool-start",
        String(limits.processes),
        // The holder itself is the system's POSIX shell (small, quick to fork); commands get `shell`.
        options.holderShell ?? "/bin/sh",
        options.shell,
        options.bwrapPath,
        ...args,
        "--perms",
        "0111",
        "--file",
        "3",
        holder,
        "--as-pid-1",
        "--info-fd",
        "4",
        "--",
        holder,
        "-c",
        HOLDER_SCRIPT,
        holder,
        options.shell,
        options.root ? "" : nprocStep(limits.processes),
        foldersToClean(args).join(" "),
        ...entriesHoldingMounts(args),
      ];
      return {
        argv,
        env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
      };
    },
    started: (info) => /"child-pid"\s*:\s*\d+/.test(info),
  };
}

/** What a command whose sandbox died under it (or before it started) prints. */
const GONE = "skiff: the session's sandbox is gone\n";

/**
 * The holder's stderr: before the sandbox is up, bwrap's own messages (kept,
 * capped, for a failed start's reason); then the running command's output,
 * framed by its start and end marks. Bytes outside a frame (none, unless the
 * holder itself complains) are dropped.
 */
class OutputDemux {
  box: Sandbox | null = null;
  #early: Uint8Array[] = [];
  #earlySize = 0;
  #pending = new Uint8Array(0);

  startErrors(): string {
    const all = new Uint8Array(this.#earlySize);
    let at = 0;
    for (const chunk of this.#early) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return new TextDecoder().decode(all);
  }

  async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) this.#take(chunk);
    } catch {
      // The pipe went with the sandbox.
    }
    // The end of the pipe: what was held back for a possible end mark is output after all.
    const running = this.box?.running;
    if (running?.started && !running.outputEnded && this.#pending.length) {
      running.onOutput(this.#pending);
    }
    this.#pending = new Uint8Array(0);
  }

  /** After the end mark: `<status> <strays>` and a newline, maybe split across chunks. */
  #status(running: Running, bytes: Uint8Array): void {
    const newline = bytes.indexOf(10);
    if (newline < 0) {
      this.#pending = bytes.slice();
      return;
    }
    this.#pending = new Uint8Array(0);
    const said = /^(\d+) ([01])$/.exec(new TextDecoder().decode(bytes.subarray(0, newline)));
    // Only the holder writes here, and always both numbers: anything else is no status.
    // A command stopped from here ends as stopped (143) whoever reports it first.
    running.finish(
      running.stopped
        ? { code: 143, strayStopped: false }
        : said
        ? { code: Number(said[1]), strayStopped: said[2] === "1" }
        : { code: 125, strayStopped: false },
    );
  }

  #take(chunk: Uint8Array): void {
    if (!this.box) {
      if (this.#earlySize < 64 * 1024) {
        this.#early.push(chunk);
        this.#earlySize += chunk.length;
      }
      return;
    }
    const running = this.box.running;
    if (!running) return;
    let bytes = this.#pending.length ? concat(this.#pending, chunk) : chunk;
    if (!running.started) {
      const at = indexOf(bytes, running.start);
      if (at < 0) {
        this.#pending = bytes.slice(heldBack(bytes, running.start));
        return;
      }
      running.started = true;
      bytes = bytes.subarray(at + running.start.length);
    }
    if (running.outputEnded) return this.#status(running, bytes);
    const at = indexOf(bytes, running.end);
    if (at >= 0) {
      if (at > 0) running.onOutput(bytes.slice(0, at));
      running.outputEnded = true;
      return this.#status(running, bytes.subarray(at + running.end.length));
    }
    // Bytes that may be the start of the end mark wait for the next chunk.
    const keep = heldBack(bytes, running.end);
    if (keep > 0) running.onOutput(bytes.slice(0, keep));
    this.#pending = bytes.slice(keep);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** Where `mark` first occurs in `bytes`, or -1. */
export function indexOf(bytes: Uint8Array, mark: Uint8Array): number {
  const first = mark[0];
  const last = bytes.length - mark.length;
  for (let at = bytes.indexOf(first); at >= 0 && at <= last; at = bytes.indexOf(first, at + 1)) {
    let index = 1;
    while (index < mark.length && bytes[at + index] === mark[index]) index++;
    if (index === mark.length) return at;
  }
  return -1;
}

/**
 * Where the tail of `bytes` that could begin `mark` starts (its length when
 * none could): those bytes wait for the next chunk.
 */
export function heldBack(bytes: Uint8Array, mark: Uint8Array): number {
  for (let size = Math.min(mark.length - 1, bytes.length); size > 0; size--) {
    let index = 0;
    while (index < size && bytes[bytes.length - size + index] === mark[index]) index++;
    if (index === size) return bytes.length - size;
  }
  return bytes.length;
}
