/**
 * The session's bubblewrap launcher: the bash tool's commands run in the
 * sandboxes of a `SandboxPool` (sandbox/pool/pool.ts), kept up for the session;
 * every other command, and any the pool cannot take, in a bwrap of its own
 * (bwrap.ts) — never without a sandbox.
 */
import type { ProcessLauncher } from "../../contracts/process_launcher.ts";
import { bwrapLauncher, type BwrapOptions, sandboxEnv, sandboxHidden } from "./bwrap.ts";
import { bwrapStarter, type Sandbox, SandboxPool } from "../pool/pool.ts";
import type { SandboxSettings } from "../modes.ts";

/** A launcher that also stops its sandboxes when the session closes. */
export interface ClosableLauncher extends ProcessLauncher {
  close(): Promise<void>;
}

/**
 * bubblewrap with the session-long sandbox: a command whose caller leases
 * (the bash tool and the background table call `guard.before()` right
 * before they start it, and its returned function once it has ended) runs in
 * a pooled sandbox; any other, and any the pool cannot take, runs through
 * `perCommand`, one bwrap each. `guard` is the workspace's command guard,
 * run inside the lease, after every process of the command is gone.
 */
export function pooledLauncher(
  pool: SandboxPool,
  perCommand: ProcessLauncher,
  env: () => Record<string, string>,
  guard?: { before(): () => string | null },
): ClosableLauncher {
  interface Lease {
    box: Sandbox | null;
    ended: boolean;
  }
  let expected: Lease | null = null;
  return {
    guard: {
      before() {
        const lease: Lease = { box: null, ended: false };
        expected = lease;
        const check = guard?.before();
        return () => {
          lease.ended = true;
          if (expected === lease) expected = null;
          if (lease.box) pool.release(lease.box);
          return check?.() ?? null;
        };
      },
    },
    async prepare(command, cwd, options = {}) {
      // Leased only by the call that announced itself in the same tick.
      const lease = expected;
      expected = null;
      if (!lease || lease.ended || options.attach !== true || command.includes("\0")) {
        return perCommand.prepare(command, cwd, options);
      }
      const box = await pool.acquire(env());
      if (!box) return perCommand.prepare(command, cwd, options);
      if (lease.ended) {
        pool.release(box);
        return perCommand.prepare(command, cwd, options);
      }
      lease.box = box;
      // Nothing to spawn: the sandbox's holder starts the command inside. No
      // lifeline: when skiff dies, bwrap dies (--die-with-parent), the holder
      // with it, and with the holder every process in the sandbox.
      return {
        argv: [],
        env: {},
        attached: (onOutput) => {
          const run = pool.run(box, command, cwd, onOutput);
          if (!run) throw new Error("the command could not be sent to the session's sandbox");
          return run;
        },
      };
    },
    warm: () => pool.warm(env()),
    close: () => pool.close(),
  };
}

/**
 * The session's bubblewrap launcher with the pool (`pooledLauncher`), built
 * from the same settings and options as `bwrapLauncher`.
 */
export function bwrapSessionLauncher(
  settings: SandboxSettings,
  options: BwrapOptions & {
    maxSandboxes?: number;
    onStartFailed?: () => void;
    /** The holder's shell (`BwrapStartOptions.holderShell`); tests name another. */
    holderShell?: string;
  } = {},
  guard?: { before(): () => string | null },
): ClosableLauncher & { pool: SandboxPool } {
  const root = (options.uid === undefined ? Deno.uid() : options.uid) === 0;
  const env = () => sandboxEnv(settings, options.getEnv);
  const pool = new SandboxPool({
    starter: bwrapStarter(settings, {
      bwrapPath: options.bwrapPath ?? "bwrap",
      shell: options.shell ?? "sh",
      holderShell: options.holderShell,
      root,
      hidden: sandboxHidden(settings, options),
    }),
    maxSandboxes: options.maxSandboxes,
    onStartFailed: options.onStartFailed,
  });
  return { ...pooledLauncher(pool, bwrapLauncher(settings, options), env, guard), pool };
}
