/**
 * Picks the process launcher for a sandbox mode and platform. Never runs
 * silently unsandboxed: when no sandbox is available and the mode is not
 * `full-access`, the answer is a refusal that says how to fix it; an
 * interactive caller may show its warning and ask, a headless one denies.
 */
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import { bwrapLauncher } from "./bwrap.ts";
import type { SandboxSettings } from "./modes.ts";
import { plainLauncher } from "./plain.ts";
import { SANDBOX_EXEC_PATH, sandboxExecLauncher } from "./sandbox_exec.ts";

/** Which sandbox programs exist (and work) on this machine: their paths, or null. */
export interface AvailableSandboxes {
  bwrap: string | null;
  sandboxExec: string | null;
}

export type LauncherChoice =
  | { kind: "launcher"; name: "bwrap" | "sandbox-exec" | "none"; launcher: ProcessLauncher }
  | { kind: "refusal"; message: string; warning: string };

export function chooseLauncher(
  settings: SandboxSettings,
  platform: typeof Deno.build.os,
  available: AvailableSandboxes,
  getEnv?: (name: string) => string | undefined,
): LauncherChoice {
  if (settings.mode === "full-access") {
    return { kind: "launcher", name: "none", launcher: plainLauncher(settings, { getEnv }) };
  }
  if (platform === "linux" && available.bwrap) {
    return {
      kind: "launcher",
      name: "bwrap",
      launcher: bwrapLauncher(settings, { bwrapPath: available.bwrap, getEnv }),
    };
  }
  if (platform === "darwin" && available.sandboxExec) {
    return {
      kind: "launcher",
      name: "sandbox-exec",
      launcher: sandboxExecLauncher(settings, { getEnv, sandboxExecPath: available.sandboxExec }),
    };
  }
  const fix = platform === "darwin"
    ? `sandbox-exec was not found at ${SANDBOX_EXEC_PATH}`
    : platform === "linux"
    ? "bubblewrap is not installed or cannot create namespaces here; install it with " +
      "`apt-get install bubblewrap` (or your distribution's package)"
    : `no process sandbox is supported on ${platform}`;
  return {
    kind: "refusal",
    message: `Cannot run commands in '${settings.mode}' mode: ${fix}. ` +
      "Or choose `--sandbox full-access` to run commands without a sandbox.",
    warning: `No sandbox is available (${fix}). Commands would run with your full user ` +
      "rights: they could change or read any of your files and reach the network.",
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
  return plainLauncher(settings, { acceptedUnsandboxed: true, getEnv });
}

/**
 * Finds the sandbox programs and checks they actually work (bubblewrap
 * fails in containers without user namespaces). Needs `--allow-run` for
 * them. `run` is injectable for tests.
 */
export async function probeSandboxes(
  platform: typeof Deno.build.os = Deno.build.os,
  run: (argv: string[]) => Promise<boolean> = runQuietly,
): Promise<AvailableSandboxes> {
  const found: AvailableSandboxes = { bwrap: null, sandboxExec: null };
  if (platform === "linux") {
    for (const candidate of ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "bwrap"]) {
      if (await run([candidate, "--ro-bind", "/", "/", "--unshare-net", "--", "true"])) {
        found.bwrap = candidate;
        break;
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

async function runQuietly(argv: string[]): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "null",
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
    }).output();
    return success;
  } catch {
    return false;
  }
}
