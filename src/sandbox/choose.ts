/**
 * Picks the process launcher for a sandbox mode and platform. Never runs
 * silently unsandboxed: when no sandbox is available and the mode is not
 * `full-access`, the answer is a refusal that says how to fix it; an
 * interactive caller may show its warning and ask, a headless one denies.
 */
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import { bwrapLauncher } from "./bwrap/bwrap.ts";
import type { SandboxSettings } from "./modes.ts";
import { denoCacheDir, landlockExecArgv, landlockLauncher } from "./landlock/launcher.ts";
import { landlockPlan } from "./landlock/rules.ts";
import {
  type LandlockProbeCache,
  readCachedLandlockProbe,
  writeCachedLandlockProbe,
} from "./landlock/probe_cache.ts";
import { plainLauncher } from "./plain.ts";
import { output, ProgramUnavailable } from "../lib/spawn.ts";
import {
  BWRAP_CANDIDATES,
  readCachedBwrapProbe,
  writeCachedBwrapProbe,
} from "./bwrap/probe_cache.ts";
import { commandShell } from "./shell.ts";
import { SANDBOX_EXEC_PATH, sandboxExecLauncher } from "./macos/sandbox_exec.ts";

/** Which sandbox programs exist (and work) on this machine: their paths, or null. */
export interface AvailableSandboxes {
  bwrap: string | null;
  sandboxExec: string | null;
  /** The kernel's Landlock ABI when the Landlock backend works here. */
  landlock?: number | null;
  /** Why a backend does not work here, as its probe found. */
  reasons?: { bwrap?: string; landlock?: string };
}

/** `--sandbox-backend`, `sandbox.backend`, `SKIFF_SANDBOX_BACKEND`. */
export type SandboxBackend = "auto" | "bwrap" | "landlock";
export const SANDBOX_BACKENDS: readonly SandboxBackend[] = ["auto", "bwrap", "landlock"];

export type LauncherChoice =
  | {
    kind: "launcher";
    name: "bwrap" | "landlock" | "sandbox-exec" | "none";
    launcher: ProcessLauncher;
  }
  | { kind: "refusal"; message: string; warning: string };

export function chooseLauncher(
  settings: SandboxSettings,
  platform: typeof Deno.build.os,
  available: AvailableSandboxes,
  getEnv?: (name: string) => string | undefined,
  backend: SandboxBackend = "auto",
  shell: string = commandShell().program,
): LauncherChoice {
  if (settings.mode === "full-access") {
    return { kind: "launcher", name: "none", launcher: plainLauncher(settings, { getEnv, shell }) };
  }
  if (backend !== "auto") {
    return forcedBackend(settings, platform, available, backend, getEnv, shell);
  }
  if (platform === "linux" && available.bwrap) {
    return {
      kind: "launcher",
      name: "bwrap",
      launcher: bwrapLauncher(settings, { bwrapPath: available.bwrap, getEnv, shell }),
    };
  }
  if (platform === "linux" && available.landlock) {
    return {
      kind: "launcher",
      name: "landlock",
      launcher: landlockLauncher(settings, { abi: available.landlock, getEnv, shell }),
    };
  }
  if (platform === "darwin" && available.sandboxExec) {
    return {
      kind: "launcher",
      name: "sandbox-exec",
      launcher: sandboxExecLauncher(settings, {
        getEnv,
        sandboxExecPath: available.sandboxExec,
        shell,
      }),
    };
  }
  const fix = platform === "darwin"
    ? `sandbox-exec was not found at ${SANDBOX_EXEC_PATH}`
    : platform === "linux"
    ? `bubblewrap does not work here (${
      available.reasons?.bwrap ?? "not installed or cannot create namespaces"
    }) and neither does Landlock (${
      available.reasons?.landlock ?? "not probed"
    }); install bubblewrap with ` +
      "`apt-get install bubblewrap` and allow user namespaces, or use a kernel with Landlock " +
      "(5.13 or later); `skiff doctor` shows what was tried"
    : `no process sandbox is supported on ${platform}`;
  return {
    kind: "refusal",
    message: `Cannot run commands in '${settings.mode}' mode: ${fix}. ` +
      "Or choose `--sandbox full-access` to run commands without a sandbox.",
    warning: `No sandbox is available (${fix}). Commands would run with your full user ` +
      "rights: they could change or read any of your files and reach the network.",
  };
}

/** A backend the user named: it works here, or the run is refused saying why (never another). */
function forcedBackend(
  settings: SandboxSettings,
  platform: typeof Deno.build.os,
  available: AvailableSandboxes,
  backend: "bwrap" | "landlock",
  getEnv: ((name: string) => string | undefined) | undefined,
  shell: string,
): LauncherChoice {
  if (platform === "linux" && backend === "bwrap" && available.bwrap) {
    return {
      kind: "launcher",
      name: "bwrap",
      launcher: bwrapLauncher(settings, { bwrapPath: available.bwrap, getEnv, shell }),
    };
  }
  if (platform === "linux" && backend === "landlock" && available.landlock) {
    return {
      kind: "launcher",
      name: "landlock",
      launcher: landlockLauncher(settings, { abi: available.landlock, getEnv, shell }),
    };
  }
  const reason = platform !== "linux"
    ? `it is Linux only (this is ${platform})`
    : available.reasons?.[backend] ?? "its probe failed";
  return {
    kind: "refusal",
    message: `Cannot run commands with the sandbox backend '${backend}' you chose: ${reason}. ` +
      "Choose --sandbox-backend auto (or another backend), or run `skiff doctor` to see " +
      "which backends work here.",
    warning: `The sandbox backend '${backend}' does not work here (${reason}).`,
  };
}

/**
 * After a person accepted the refusal's warning: an unsandboxed launcher.
 * Headless callers must never call this.
 */
export function acceptUnsandboxed(
  settings: SandboxSettings,
  getEnv?: (name: string) => string | undefined,
): ProcessLauncher {
  return plainLauncher(settings, {
    acceptedUnsandboxed: true,
    getEnv,
    shell: commandShell().program,
  });
}

/**
 * Which backends a probe tries: `all` (skiff doctor, the tests), or what a
 * session with this `sandbox.backend` needs — `auto` tries Landlock only
 * when bubblewrap does not work, a forced backend only itself.
 */
export type ProbeScope = "all" | SandboxBackend;

/**
 * The probe a session starts with: only the backends `backend` can use, so
 * where bubblewrap works no Landlock probe process is started; with `cache`,
 * bubblewrap's and Landlock's answers from an earlier start in the same
 * environment are reused.
 */
export function probeSandboxesFor(
  backend: SandboxBackend,
  cache?: LandlockProbeCache,
): Promise<AvailableSandboxes> {
  return probeSandboxes(Deno.build.os, runQuietly, undefined, backend, cache);
}

/**
 * Finds the sandbox programs and checks they actually work (bubblewrap
 * fails in containers without user namespaces). Needs `--allow-run` for
 * them. `run` is injectable for tests.
 */
export async function probeSandboxes(
  platform: typeof Deno.build.os = Deno.build.os,
  run: (argv: string[]) => Promise<boolean> = runQuietly,
  /** The Landlock probe; by default the real one, skipped when `run` is a test's fake. */
  landlock: (() => Promise<number | string>) | null = run === runQuietly
    ? () => probeLandlock(runOutput)
    : null,
  /** @default "all" */
  scope: ProbeScope = "all",
  /**
   * Where the answers are kept (sandbox/bwrap/probe_cache.ts, sandbox/landlock/probe_cache.ts):
   * a session's scope reuses an answer under the same key; scope `all` (skiff
   * doctor) always probes. Every probe that runs writes its answer here.
   */
  cache?: LandlockProbeCache,
): Promise<AvailableSandboxes> {
  const found: AvailableSandboxes = { bwrap: null, sandboxExec: null };
  if (platform === "linux") {
    if (scope !== "landlock") {
      found.bwrap = await keptOrProbed(
        cache,
        scope,
        readCachedBwrapProbe,
        () => probeBwrap(run),
        writeCachedBwrapProbe,
      );
    }
    if (landlock) {
      found.reasons = {};
      if (!found.bwrap) {
        found.reasons.bwrap = scope === "landlock"
          ? "not probed (sandbox.backend is 'landlock')"
          : "not installed, or it cannot create namespaces here (a container's seccomp " +
            "profile, or AppArmor restricting unprivileged user namespaces)";
      }
      if (scope === "all" || scope === "landlock" || (scope === "auto" && !found.bwrap)) {
        const abi = await keptOrProbed(
          cache,
          scope,
          readCachedLandlockProbe,
          landlock,
          writeCachedLandlockProbe,
        );
        found.landlock = typeof abi === "number" ? abi : null;
        if (typeof abi === "string") found.reasons.landlock = abi;
      } else {
        found.reasons.landlock = scope === "bwrap"
          ? "not probed (sandbox.backend is 'bwrap')"
          : "not probed (bubblewrap works)";
      }
    }
  }
  if (
    platform === "darwin" &&
    await run([SANDBOX_EXEC_PATH, "-p", "(version 1)(allow default)", "true"])
  ) {
    found.sandboxExec = SANDBOX_EXEC_PATH;
  }
  return found;
}

/**
 * A probe's answer: the one kept under `cache`'s key when there is one and
 * the scope is a session's (`all`, skiff doctor, always probes), else the
 * probe's, which is then kept (a "does not work" removes the entry).
 */
async function keptOrProbed<T>(
  cache: LandlockProbeCache | undefined,
  scope: ProbeScope,
  read: (cache: LandlockProbeCache) => T | undefined,
  probe: () => Promise<T>,
  write: (cache: LandlockProbeCache, answer: T) => void,
): Promise<T> {
  const kept = cache && scope !== "all" ? read(cache) : undefined;
  if (kept !== undefined) return kept;
  const answer = await probe();
  if (cache) write(cache, answer);
  return answer;
}

/** The first bubblewrap that runs `true` in a new network namespace, or null. */
async function probeBwrap(run: (argv: string[]) => Promise<boolean>): Promise<string | null> {
  for (const candidate of BWRAP_CANDIDATES) {
    if (await run([candidate, "--ro-bind", "/", "/", "--unshare-net", "--", "true"])) {
      return candidate;
    }
  }
  return null;
}

/**
 * Runs `true` through the Landlock exec step with a read-only ruleset: the
 * kernel's ABI when it all worked, else why not (the step's own message).
 */
export async function probeLandlock(
  run: (argv: string[]) => Promise<{ ok: boolean; stdout: string; stderr: string }>,
): Promise<number | string> {
  let argv: string[];
  try {
    const plan = landlockPlan({
      settings: { mode: "read-only", workspace: "/", addDirs: [], network: false, envNames: [] },
      abi: 1,
      hidden: [],
    });
    argv = landlockExecArgv({ ...plan, probe: true }, ["/bin/sh", "-c", "true"]);
  } catch (error) {
    return (error as Error).message;
  }
  const result = await run(argv);
  const abi = /landlock-abi=(\d+)/.exec(result.stdout);
  if (result.ok && abi) return Number(abi[1]);
  const said = result.stderr.trim().split("\n").pop();
  return said ? said.replace(/^skiff: /, "") : "the Landlock step failed without a message";
}

async function runOutput(argv: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  try {
    const result = await output(argv[0], {
      args: argv.slice(1),
      env: { PATH: "/usr/bin:/bin", DENO_DIR: denoCacheDir() },
    });
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { ok: result.success, stdout: decode(result.stdout), stderr: decode(result.stderr) };
  } catch (error) {
    const cause = error instanceof ProgramUnavailable ? error.cause : error;
    return { ok: false, stdout: "", stderr: (cause as Error).message };
  }
}

async function runQuietly(argv: string[]): Promise<boolean> {
  try {
    const { success } = await output(argv[0], {
      args: argv.slice(1),
      stdout: "null",
      stderr: "null",
      env: { PATH: "/usr/bin:/bin" },
    });
    return success;
  } catch {
    return false;
  }
}
