/**
 * Linux process sandbox without namespaces, for where bubblewrap cannot run
 * (containers whose seccomp profile or AppArmor refuses user namespaces):
 * each command starts through a short exec step, skiff's hidden subcommand
 * `__landlock-exec` (sandbox/landlock/exec.ts; from source the only step given
 * `--allow-ffi`), that applies a Landlock ruleset (sandbox/landlock/rules.ts), sets
 * `no_new_privs`, drops every capability and then execs the shell. What this
 * covers less than bubblewrap is listed in docs/security.md ("The Landlock
 * backend").
 */
import { fileURLToPath } from "../../lib/path.ts";
import type { ProcessLauncher } from "../../contracts/process_launcher.ts";
import { childEnv, SANDBOX_GIT_ENV } from "../env.ts";
import { defaultHiddenFor, hiddenAround, hiddenMounts } from "../hidden.ts";
import { DEFAULT_LIMITS, nprocStep, ROOT_PIDS_STEP } from "../limits.ts";
import { type LandlockPlan, landlockPlan } from "./rules.ts";
import type { SandboxSettings } from "../modes.ts";
import { ENTRY_URL } from "../../contracts/entry.ts";

/** The hidden subcommand main.ts dispatches to sandbox/landlock/exec.ts. */
export const LANDLOCK_EXEC_STEP = "__landlock-exec";

/** Names the processes of one command: each gets a fresh random value in its environment. */
export const COMMAND_MARK_ENV = "SKIFF_COMMAND_MARK";

/**
 * What the watchdog does once the lifeline closes (the command ended, was
 * stopped, or skiff is gone): kill the command's process group (`$1`), then
 * every process whose environment carries the command's mark (`$2`) — a
 * child that called setsid left the group but kept the mark. It repeats
 * while it finds some (a process may fork meanwhile), at most 20 rounds.
 * Its own environment has no mark, nor have grep and cut.
 */
const WATCHDOG = 'IFS= read -r _; kill -9 -"$1" 2>/dev/null; i=0; ' +
  'while [ "$i" -lt 20 ]; do i=$((i+1)); ' +
  `p=$(grep -lsxzF "${COMMAND_MARK_ENV}=$2" /proc/[0-9]*/environ | cut -d/ -f3); ` +
  '[ -n "$p" ] || exit 0; kill -9 $p 2>/dev/null; done';

/**
 * Waits (at most 5000 reads of its /proc stat) until the watchdog started
 * last (`$!`) is out of the command's process group, whose id is this
 * shell's pid: a command that ended before the watchdog's setsid left it in
 * the group, where skiff took it for a stray and killed it before it had
 * done its work (1 command in 15–20 of `echo hi`). Its variables are skiff's
 * own names, unset again, so the command's shell sees none of them.
 */
const WAIT_FOR_WATCHDOG = "_skiff_w=$! _skiff_i=0; " +
  'while [ "$_skiff_i" -lt 5000 ] && IFS= read -r _skiff_s < "/proc/$_skiff_w/stat"; do ' +
  // The fields after the command name: state, parent, group.
  "_skiff_s=${_skiff_s##*) }; _skiff_s=${_skiff_s#* }; _skiff_s=${_skiff_s#* }; " +
  '[ "${_skiff_s%% *}" = "$$" ] || break; _skiff_i=$((_skiff_i+1)); done 2>/dev/null; ' +
  "unset _skiff_w _skiff_i _skiff_s; ";

/**
 * The lifeline (bwrap.ts) without a pid namespace: never `kill -1`, which
 * here would reach every process of the user. The watchdog leaves the
 * command's session (setsid), so killing the group does not kill it, and
 * holds the lifeline alone, with nothing else of the command open: when the
 * pipe closes it kills the group and the marked processes (WATCHDOG). The
 * command starts once the watchdog has left the group (WAIT_FOR_WATCHDOG).
 * With no setsid program it stays in the group and kills the group only.
 */
export const LANDLOCK_LIFELINE_STEP = "IFS= read -r _ || exit 125; exec 3<&0 </dev/null; " +
  "if command -v setsid >/dev/null && command -v grep >/dev/null; then " +
  `( m=$${COMMAND_MARK_ENV}; unset ${COMMAND_MARK_ENV}; ` +
  `exec setsid sh -c '${WATCHDOG}' skiff-lifeline "$$" "$m" ) <&3 >/dev/null 2>&1 & ` +
  WAIT_FOR_WATCHDOG +
  "else ( { IFS= read -r _; kill -9 0; } <&3 & ); fi; exec 3<&-; ";

export interface LandlockLauncherOptions {
  /** The kernel's Landlock ABI (from the probe). */
  abi: number;
  /** The Deno executable that runs the exec step. @default Deno.execPath() */
  denoPath?: string;
  /** Reads an environment variable; injectable for tests. */
  getEnv?: (name: string) => string | undefined;
  /** The user skiff runs as; 0 is root. @default Deno.uid() */
  uid?: number | null;
  /** Where the command's temp folder is made; tests use their own. @default "/tmp" */
  tempRoot?: string;
  /** The shell that runs the command (src/sandbox/shell.ts); not absolute means /bin/sh. @default "/bin/sh" */
  shell?: string;
}

/**
 * Deno's cache folder for the process running skiff (where Deno itself
 * looks: DENO_DIR, else XDG_CACHE_HOME/deno, else ~/.cache/deno), so the
 * exec step writes nowhere new.
 */
export function denoCacheDir(): string {
  const read = (name: string) => {
    try {
      return Deno.env.get(name) || undefined;
    } catch {
      return undefined; // no env permission for it
    }
  };
  const cache = read("XDG_CACHE_HOME");
  return read("DENO_DIR") ?? (cache ? `${cache}/deno` : `${read("HOME") ?? "/root"}/.cache/deno`);
}

/**
 * The argv that runs `program args…` under `plan`: skiff's hidden exec step.
 * A compiled binary runs itself (`skiff __landlock-exec …`) with the
 * permissions compiled into it, which the main process has as well; from
 * source, `deno run` gets only what the step needs: FFI for the syscalls,
 * the environment it passes on, reading (to list the folders around hidden
 * paths and sweep stale temp folders) and writing in the temp root.
 */
export function landlockExecArgv(
  plan: LandlockPlan & { probe?: boolean },
  program: string[],
  denoPath: string = Deno.execPath(),
  standalone: boolean = Deno.build.standalone,
): string[] {
  const step = [LANDLOCK_EXEC_STEP, JSON.stringify(plan), ...program];
  if (standalone) return [denoPath, ...step];
  return [
    denoPath,
    "run",
    "--quiet",
    "--no-config",
    "--no-lock",
    "--allow-ffi",
    "--allow-env",
    "--allow-read",
    `--allow-write=${plan.tempRoot ?? "/tmp"}`,
    fileURLToPath(ENTRY_URL),
    ...step,
  ];
}

/**
 * What every start of the exec step under `settings` gets, per command or
 * for the session's holder (sandbox/landlock/session.ts): its environment (the
 * command's, without a mark), its plan, the command shell, and the process
 * limit — `nproc`, the step the shell runs first when skiff is not root
 * (RLIMIT_NPROC), or, as root, the `pids` cgroup step `argv` puts around
 * the exec step (the kernel exempts root from RLIMIT_NPROC; without a user
 * namespace RLIMIT_NPROC counts all of the user's processes).
 */
export function landlockSteps(settings: SandboxSettings, options: LandlockLauncherOptions): {
  env(): Record<string, string>;
  plan(): LandlockPlan;
  /** The shell commands run with; execve takes no PATH search, so `sh` is /bin/sh. */
  shell: string;
  nproc: string;
  /** The argv that runs `program` under `plan` through the exec step. */
  argv(plan: LandlockPlan, program: string[]): string[];
} {
  const root = (options.uid === undefined ? Deno.uid() : options.uid) === 0;
  const limits = settings.limits ?? DEFAULT_LIMITS;
  const home = (options.getEnv ?? ((name) => Deno.env.get(name)))("HOME") ?? "/";
  const hidden = (settings.hidden ?? hiddenMounts(defaultHiddenFor(home, settings.workspace)))
    .map((mount) => mount.path);
  const applying = hiddenAround(hidden, [settings.workspace, ...settings.addDirs]);
  return {
    env() {
      const env: Record<string, string> = {
        ...childEnv(settings.envNames, options.getEnv),
        ...SANDBOX_GIT_ENV,
      };
      // The exec step caches its transpiled code in skiff's own Deno cache,
      // not in the command's home; the step removes the name before exec.
      if (env.DENO_DIR === undefined) {
        env.DENO_DIR = denoCacheDir();
        env.SKIFF_LANDLOCK_STEP_ENV = "DENO_DIR";
      }
      return env;
    },
    plan() {
      const plan = landlockPlan({ settings, abi: options.abi, hidden: applying });
      if (options.tempRoot) plan.tempRoot = options.tempRoot;
      return plan;
    },
    shell: options.shell?.startsWith("/") ? options.shell : "/bin/sh",
    nproc: root ? "" : nprocStep(limits.processes),
    argv(plan, program) {
      const step = landlockExecArgv(plan, program, options.denoPath);
      return root
        ? ["sh", "-c", ROOT_PIDS_STEP, "skiff-limit", String(limits.processes), ...step]
        : step;
    },
  };
}

/**
 * A launcher for Landlock. Spawn the returned argv with exactly the returned
 * `env` and `clearEnv: true`, as its own process group (the bash tool does).
 */
export function landlockLauncher(
  settings: SandboxSettings,
  options: LandlockLauncherOptions,
): ProcessLauncher {
  const steps = landlockSteps(settings, options);
  return {
    prepare(command: string, _cwd: string, prepareOptions: { lifeline?: boolean } = {}) {
      const env = { ...steps.env(), [COMMAND_MARK_ENV]: crypto.randomUUID() };
      const lifeline = prepareOptions.lifeline === true;
      const script = (lifeline ? LANDLOCK_LIFELINE_STEP : "") + steps.nproc + command;
      const argv = steps.argv(steps.plan(), [steps.shell, "-c", script]);
      return Promise.resolve({ argv, env, lifeline });
    },
  };
}
