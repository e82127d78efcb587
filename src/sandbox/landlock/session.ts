/**
 * The session's Landlock launcher: the bash tool's commands run in holders
 * that stay up for the session (sandbox/landlock/pool_steps.ts), each started once
 * through the exec step with the ruleset one command would get; the pool of
 * sandbox/pool/pool.ts leases them, exactly as it leases bubblewrap sandboxes.
 * Every other command, and any the pool cannot take, starts through the
 * exec step of its own (sandbox/landlock/launcher.ts) — never without a sandbox.
 * What sharing one domain across a session's commands changes is in
 * docs/security.md ("The Landlock backend").
 */
import { SandboxPool, type SandboxStarter } from "../pool/pool.ts";
import { type ClosableLauncher, pooledLauncher } from "../bwrap/session.ts";
import {
  COMMAND_MARK_ENV,
  landlockLauncher,
  type LandlockLauncherOptions,
  landlockSteps,
} from "./launcher.ts";
import { LANDLOCK_HOLDER_SCRIPT, MARK_SWEEP } from "./pool_steps.ts";
import type { SandboxSettings } from "../modes.ts";
import { output } from "../../lib/spawn.ts";

export interface LandlockSessionOptions extends LandlockLauncherOptions {
  /** At most this many holders at once. @default 4 */
  maxSandboxes?: number;
  /** Called once when the first holder did not start (the cached probe may be wrong). */
  onStartFailed?: () => void;
}

/**
 * How a Landlock holder starts: the exec step with the plan a command would
 * get (marked as a holder's), running the shell copy with the holder's
 * script; as root inside a `pids` cgroup of its own, which every command of
 * the session then shares, as in the bubblewrap pool.
 */
export function landlockStarter(
  settings: SandboxSettings,
  options: LandlockLauncherOptions,
): SandboxStarter {
  const steps = landlockSteps(settings, options);
  return {
    argsFor: (env) => [JSON.stringify(steps.plan()), JSON.stringify({ ...steps.env(), ...env })],
    command([planText, envText]) {
      const mark = crypto.randomUUID();
      // The holder itself is the system's POSIX shell (small, quick to fork); commands get `shell`.
      const plan = { ...JSON.parse(planText), holder: true, holderFallback: steps.shell };
      const argv = steps.argv(plan, [
        "/bin/sh",
        "-c",
        LANDLOCK_HOLDER_SCRIPT,
        "skiff-landlock-holder",
        steps.shell,
        steps.nproc,
      ]);
      return {
        argv,
        env: { ...JSON.parse(envText), [COMMAND_MARK_ENV]: mark },
        // From outside the sandbox: the holder, its helpers and what commands left all carry the mark.
        stop: async (holder) => {
          try {
            await output("sh", {
              args: ["-c", MARK_SWEEP, "skiff-sweep", mark, String(holder)],
              env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
              stdout: "null",
              stderr: "null",
            });
          } catch {
            // No shell to run it: the holder's helper sweeps when its input ends.
          }
        },
      };
    },
    started: () => true,
  };
}

/**
 * Landlock with session-long holders (`pooledLauncher`): commands whose
 * caller leases (the bash tool, the background table) run in one; others
 * through `landlockLauncher`.
 */
export function landlockSessionLauncher(
  settings: SandboxSettings,
  options: LandlockSessionOptions,
  guard?: { before(): () => string | null },
): ClosableLauncher & { pool: SandboxPool } {
  const pool = new SandboxPool({
    starter: landlockStarter(settings, options),
    maxSandboxes: options.maxSandboxes,
    onStartFailed: options.onStartFailed,
  });
  // The holder's environment is the command's: the pool compares it to keep or replace a holder.
  const perCommand = landlockLauncher(settings, options);
  return { ...pooledLauncher(pool, perCommand, () => ({}), guard), pool };
}
