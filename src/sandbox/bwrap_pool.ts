/**
 * A sandbox that stays up for the session: starting bubblewrap with skiff's
 * arguments costs 10–30 ms per command on a quiet machine; entering one that
 * is already up costs four small program starts (docs/performance.md). The pool
 * holds sandboxes built with exactly the per-command bwrap argv (same
 * mounts, hidden paths, namespaces, network setting, no capabilities,
 * environment), one per concurrently running command: each command leases
 * one for itself, and when it ends every process it started is killed and
 * the private temp folders are emptied before the next lease
 * (bwrap_pool_steps.ts says how). One pool serves one `SandboxSettings`.
 *
 * The pool needs a `pids` cgroup it can write (skiff as root, or a delegated
 * cgroup v2): that is what finds every process of a command. Where there is
 * none, or more commands run at once than `maxSandboxes`, or the caller does
 * not lease (an MCP server; only the bash tool and the background table do),
 * the launcher falls back to one bwrap per command — never to no sandbox.
 *
 * Needs `--allow-run=sh` (the steps exec bwrap, nsenter and setpriv).
 */
import { bwrapArgs } from "./bwrap.ts";
import {
  commandCd,
  entriesHoldingMounts,
  foldersToClean,
  HOLDER_SCRIPT,
  markerCheck,
  POOL_COMMAND_STEP,
  POOL_START_STEP,
} from "./bwrap_pool_steps.ts";
import type { HiddenMount } from "./hidden.ts";
import { DEFAULT_LIMITS, nprocStep } from "./limits.ts";
import type { SandboxSettings } from "./modes.ts";

export interface PoolOptions {
  bwrapPath: string;
  /** The command shell (shell.ts). */
  shell: string;
  root: boolean;
  hidden: readonly HiddenMount[];
  /** The environment every command gets (allowlist, TMPDIR, git settings). */
  env: Record<string, string>;
  /** At most this many sandboxes at once; more concurrent commands get their own bwrap. @default 4 */
  maxSandboxes?: number;
  /**
   * Called once when the pool's first sandbox did not start because
   * bubblewrap itself failed (not for a missing cgroup or util-linux): a
   * probe's answer kept from an earlier start is then wrong here.
   */
  onStartFailed?: () => void;
}

export interface Sandbox {
  child: Deno.ChildProcess;
  holderPid: number;
  /** The bwrap arguments it was started with, to tell whether its mounts are still right. */
  key: string;
  cgroup: { dir: string; file: string; value: string };
  /** Absolute paths of nsenter and setpriv. */
  tools: [string, string];
  marker: string;
  state: "free" | "leased" | "cleaning" | "dead";
  /** Writes one line to the holder (a request to clean). */
  tell(): void;
  /** Resolves at the holder's next `clean`. */
  nextClean(): Promise<void>;
  /** While cleaning: resolves once it is free again (or dead). */
  freed: Promise<void>;
}

/** How long a command waits for a sandbox being emptied before it starts another. */
const CLEAN_WAIT_MS = 250;

/** Why the pool cannot be used here; set once, after the first start. */
type Availability = { usable: true } | { usable: false; reason: string };

export class BwrapPool {
  readonly #settings: SandboxSettings;
  readonly #options: PoolOptions;
  readonly #sandboxes = new Set<Sandbox>();
  #starting = 0;
  #availability: Availability | null = null;
  #closed = false;

  constructor(settings: SandboxSettings, options: PoolOptions) {
    this.#settings = settings;
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
   * A free sandbox, started if none is; null when the pool cannot be used
   * here or is full (the caller then runs one bwrap for the command).
   */
  async acquire(): Promise<Sandbox | null> {
    if (this.#closed || this.#availability?.usable === false) return null;
    // The mounts a bwrap of its own would get now: a repository or a protected
    // path made since a sandbox started is bound in a new one only.
    const args = this.#argsNow();
    const key = JSON.stringify(args);
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
        box.child.kill("SIGKILL");
        return null;
      }
      box.state = "leased";
      this.#sandboxes.add(box);
      return box;
    } finally {
      this.#starting--;
    }
  }

  /** The command of this lease has ended (its step emptied the cgroup): clean, then free. */
  release(box: Sandbox): void {
    if (box.state !== "leased") return;
    box.state = "cleaning";
    box.freed = box.nextClean().then(() => {
      if (box.state === "cleaning") box.state = "free";
    });
    box.tell();
  }

  /**
   * The argv that runs `script` with `shell` in `box`, in `cwd`.
   * `unsetLocale`: the caller sets `LC_ALL=C` for the steps before the
   * shell (see `commandEnv`), which the command's shell unsets first.
   */
  commandArgv(box: Sandbox, script: string, cwd: string, unsetLocale = false): string[] {
    const { dir, file, value } = box.cgroup;
    const inner = markerCheck(box.marker) + (unsetLocale ? "unset LC_ALL; " : "") + commandCd(cwd) +
      (this.#options.root ? "" : nprocStep((this.#settings.limits ?? DEFAULT_LIMITS).processes)) +
      script;
    return [
      "sh",
      "-c",
      POOL_COMMAND_STEP,
      "skiff-pool",
      dir,
      file,
      value,
      String(box.holderPid),
      ...box.tools,
      this.#options.shell,
      "-c",
      inner,
    ];
  }

  /** Stops every sandbox (each also dies with skiff: `--die-with-parent`, and its holder's stdin closing). */
  async close(): Promise<void> {
    this.#closed = true;
    const boxes = [...this.#sandboxes];
    this.#sandboxes.clear();
    for (const box of boxes) {
      box.state = "dead";
      box.child.ref(); // So the wait below holds the event loop.
      try {
        box.child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await Promise.all(boxes.map((box) => box.child.status.catch(() => {})));
  }

  #argsNow(): string[] {
    // Every command cds to its own folder; the holder works in "/", since the
    // writable root may be one file (a batch task that owns a file).
    return bwrapArgs(this.#settings, "/", this.#options.env, {
      root: this.#options.root,
      hidden: this.#options.hidden,
      tmpMB: (this.#settings.limits ?? DEFAULT_LIMITS).tmpMB,
    });
  }

  #discard(box: Sandbox): void {
    box.state = "dead";
    this.#sandboxes.delete(box);
    try {
      box.child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  }

  async #start(args: string[], key: string): Promise<Sandbox | null> {
    const settings = this.#settings;
    const limits = settings.limits ?? DEFAULT_LIMITS;
    const token = crypto.randomUUID();
    const holder = `/run/skiff-holder-${token}`;
    const marker = `/run/skiff-pool-${token}`;
    const argv = [
      "sh",
      "-c",
      POOL_START_STEP,
      "skiff-pool-start",
      String(limits.processes),
      this.#options.shell,
      this.#options.bwrapPath,
      ...args,
      "--ro-bind",
      "/dev/null",
      marker,
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
      marker,
      foldersToClean(args).join(" "),
      ...entriesHoldingMounts(args),
    ];
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: "/",
      env: this.#options.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const lines = lineReader(child.stdout);
    const errors = new Response(child.stderr).text().catch(() => "");
    const fail = async (reason: string, bwrapFailed = false) => {
      if (this.#availability === null && bwrapFailed) this.#options.onStartFailed?.();
      this.#availability ??= { usable: false, reason };
      try {
        child.kill("SIGKILL");
      } catch {
        // Gone.
      }
      await child.status.catch(() => {});
      return null;
    };
    const first = await lines.next();
    if (first === null || first === "nocgroup") {
      await child.status;
      return fail(
        first === "nocgroup"
          ? "no writable pids cgroup to find every process of a command"
          : `the sandbox did not start: ${(await errors).trim()}`,
        first !== "nocgroup",
      );
    }
    const [, dir, file, value] = first.split(" ");
    const tools = (await lines.next())?.split(" ").slice(1).filter((tool) => tool.startsWith("/"));
    if (tools?.length !== 2) return fail("nsenter and setpriv (util-linux) are not both installed");
    let info = "";
    let line: string | null;
    while ((line = await lines.next()) !== null && line !== "ready") info += line;
    const pid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
    if (line !== "ready" || !pid) {
      return fail(`the sandbox did not start: ${(await errors).trim() || info}`, true);
    }
    this.#availability ??= { usable: true };
    const writer = child.stdin.getWriter();
    const waiting: (() => void)[] = [];
    const box: Sandbox = {
      child,
      holderPid: Number(pid),
      key,
      cgroup: { dir, file, value },
      tools: [tools[0], tools[1]],
      marker,
      state: "free",
      tell: () => void writer.write(new TextEncoder().encode("\n")).catch(() => {}),
      nextClean: () => new Promise<void>((resolve) => waiting.push(resolve)),
      freed: Promise.resolve(),
    };
    (async () => {
      while ((line = await lines.next()) !== null) {
        if (line === "clean") waiting.shift()?.();
      }
    })();
    child.status.then(() => {
      box.state = "dead";
      this.#sandboxes.delete(box);
      for (const resolve of waiting.splice(0)) resolve();
    });
    // The session may end with sandboxes up: they must not keep skiff running.
    child.unref();
    return box;
  }
}

/** Lines of a stream, one per `next()`; null at the end. The read keeps no event loop alive once unref'd. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async next(): Promise<string | null> {
      for (;;) {
        const end = buffered.indexOf("\n");
        if (end >= 0) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          return line;
        }
        const { done, value } = await reader.read().catch(() => ({ done: true, value: "" }));
        if (done) {
          const rest = buffered;
          buffered = "";
          return rest || null;
        }
        buffered += value;
      }
    },
  };
}

/**
 * The environment to spawn a pooled command with, and whether its shell must
 * unset `LC_ALL` first: `nsenter` and `setpriv` each load the locale files
 * of `LANG` (about 1 ms of a command's 4 here), so they get `LC_ALL=C`
 * unless the command's environment names `LC_ALL` itself.
 */
export function commandEnv(env: Record<string, string>): {
  env: Record<string, string>;
  unsetLocale: boolean;
} {
  if ("LC_ALL" in env) return { env, unsetLocale: false };
  return { env: { ...env, LC_ALL: "C" }, unsetLocale: true };
}
