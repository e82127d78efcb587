/**
 * macOS process sandbox: `sandbox-exec` with a profile generated per
 * workspace. Everything may be read except the hidden paths (the user's
 * keys, skiff's config and data); writes are allowed only in the
 * workspace, `--add-dir`s and temp folders, the protected paths are denied,
 * and the network is denied unless allowed. Written here, tested only as
 * text (no macOS machine in our CI); see docs/security.md.
 */
import * as path from "../../lib/path.ts";
import type { ProcessLauncher } from "../../contracts/process_launcher.ts";
import { childEnv, SANDBOX_GIT_ENV } from "../env.ts";
import { defaultHiddenFor, hiddenAround } from "../hidden.ts";
import type { SandboxSettings } from "../modes.ts";
import { realpathLenient } from "../paths.ts";
import { protectedPaths } from "../protected.ts";

export const SANDBOX_EXEC_PATH = "/usr/bin/sandbox-exec";

/** A string literal in the profile language. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The SBPL profile for `settings`. Later rules win, so denials come last. */
export function sandboxProfile(settings: SandboxSettings, tempDirs: string[] = []): string {
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    '(allow file-write* (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))',
  ];
  const writable = settings.mode === "read-only"
    ? []
    : [settings.workspace, ...settings.addDirs].map((dir) => realpathLenient(dir));
  const temps = ["/private/tmp", "/private/var/folders", ...tempDirs];
  const subpaths = [...writable, ...temps].map((dir) => `(subpath ${quote(dir)})`);
  lines.push(`(allow file-write* ${subpaths.join(" ")})`);
  if (settings.mode !== "read-only") {
    const denied = protectedPaths(settings.workspace).map((target) => `(subpath ${quote(target)})`);
    // `.git` itself may not be renamed, replaced or (as a file) rewritten.
    denied.push(`(literal ${quote(path.join(realpathLenient(settings.workspace), ".git"))})`);
    lines.push(`(deny file-write* ${denied.join(" ")})`);
  }
  const hidden = hiddenAround(
    settings.hidden?.map((mount) => mount.path) ??
      defaultHiddenFor(Deno.env.get("HOME") ?? "/", settings.workspace),
    [settings.workspace, ...settings.addDirs],
  );
  if (hidden.length) {
    lines.push(
      `(deny file-read* file-write* ${
        hidden.map((target) => `(subpath ${quote(target)})`).join(" ")
      })`,
    );
  }
  if (!settings.network) {
    lines.push("(deny network*)");
    // Local unix sockets (e.g. for the system logger) keep working.
    lines.push('(allow network* (remote unix-socket (path-literal "/private/var/run/syslog")))');
  }
  return lines.join("\n") + "\n";
}

/** A launcher for macOS. Spawn with exactly the returned env and `clearEnv: true`. */
export function sandboxExecLauncher(
  settings: SandboxSettings,
  options: {
    getEnv?: (name: string) => string | undefined;
    sandboxExecPath?: string;
    /** The shell that runs the command (src/sandbox/shell.ts). @default "sh" */
    shell?: string;
  } = {},
): ProcessLauncher {
  return {
    prepare(command: string, _cwd: string) {
      const env = { ...childEnv(settings.envNames, options.getEnv), ...SANDBOX_GIT_ENV };
      const profile = sandboxProfile(settings, env.TMPDIR ? [realpathLenient(env.TMPDIR)] : []);
      const argv = [
        options.sandboxExecPath ?? SANDBOX_EXEC_PATH,
        "-p",
        profile,
        options.shell ?? "sh",
        "-c",
        command,
      ];
      return Promise.resolve({ argv, env });
    },
  };
}
