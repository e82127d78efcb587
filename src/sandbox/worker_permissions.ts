/**
 * The Deno permissions of the Worker that runs the session engine, derived
 * from the sandbox mode and config. This is the second layer: a bug in our
 * own path checks meets `Deno.errors.NotCapable` instead of the user's files.
 * It does not follow symlinks when checking and does not constrain child
 * processes; the path resolver and the OS sandbox cover those.
 */
import { installedBashPaths } from "./shell.ts";
import * as path from "../lib/path.ts";
import { allowedEnvNames } from "./env.ts";
import type { SandboxMode } from "./modes.ts";
import { realpathLenient } from "./paths.ts";
import type { Listings } from "./dir_entries.ts";

export interface WorkerPermissionInput {
  mode: SandboxMode;
  workspace: string;
  /** `--add-dir` folders. */
  addDirs?: string[];
  /** skiff's data folder (database, spilled tool output): always writable. */
  dataDir: string;
  /** Readable only: global config folder, agent and skill folders, the project's git root… */
  configDirs?: string[];
  /** Provider and MCP hosts (`api.example.com`, `localhost:8080`), or true for any host. */
  netHosts?: string[] | true;
  /** Configured extra environment names (credentials are filtered out). */
  envNames?: string[];
  /** Names the engine itself must read (the provider key). Never reach children. */
  engineEnvNames?: string[];
  /** Programs the engine may start: the sandbox launcher and tools (absolute paths or names). */
  runPrograms?: string[];
  /** System folders tools read (certificates, timezone data). @default DEFAULT_SYSTEM_READ */
  systemRead?: string[];
}

/** Read-only system paths the engine's own code needs. */
export const DEFAULT_SYSTEM_READ: readonly string[] = [
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/usr/share/zoneinfo",
  "/etc/localtime",
  // To tell whether commands run with bash (src/sandbox/shell.ts).
  "/bin/bash",
  "/usr/bin/bash",
];

/** Programs the engine starts per mode: the launcher's binary and the tools that shell out. */
export function defaultRunPrograms(mode: SandboxMode, platform = Deno.build.os): string[] {
  const tools = ["rg", "git"];
  // Unsandboxed, the Worker starts the command's shell itself (bash where installed).
  if (mode === "full-access") return ["sh", ...installedBashPaths(), ...tools];
  // Deno itself runs the Landlock backend's exec step (src/sandbox/landlock/exec.ts); bash
  // runs a command a person accepted to run unsandboxed (src/sandbox/choose.ts).
  return platform === "darwin"
    ? ["/usr/bin/sandbox-exec", ...installedBashPaths(), ...tools]
    : ["bwrap", Deno.execPath(), ...installedBashPaths(), ...tools];
}

/** System paths that are there on nearly every system, in folders of a thousand names. */
const USUALLY_THERE: ReadonlySet<string> = new Set(["/bin/bash", "/usr/bin/bash"]);

/**
 * `paths` resolved, each once. Several are usually missing (/etc/pki,
 * ~/.claude/skills…): their folders' listings pass them over without the
 * failing calls. `present` (the workspace, the data folder) and the bash
 * paths are usually there, in folders that can be large (/tmp, /usr/bin):
 * a listing of those costs more than the one call it would save (docs/performance.md), so they are resolved directly.
 */
function unique(paths: string[], present: readonly string[] = []): string[] {
  const listings: Listings = new Map();
  const direct = (dir: string) => USUALLY_THERE.has(dir) || present.includes(dir);
  return [
    ...new Set(
      paths.map((dir) => realpathLenient(path.resolve(dir), 0, direct(dir) ? undefined : listings)),
    ),
  ];
}

/** `new Worker(url, { type: "module", deno: { permissions: workerPermissions(…) } })`. */
export function workerPermissions(input: WorkerPermissionInput): Deno.PermissionOptionsObject {
  const workspaceDirs = [input.workspace, ...(input.addDirs ?? [])];
  const present = [...workspaceDirs, input.dataDir];
  const read = unique([
    ...workspaceDirs,
    ...(input.configDirs ?? []),
    input.dataDir,
    ...(input.systemRead ?? DEFAULT_SYSTEM_READ),
  ], present);
  const write = unique(
    [...(input.mode === "read-only" ? [] : workspaceDirs), input.dataDir],
    present,
  );
  // Deno's cache names: the Landlock exec step must use the same cache as skiff.
  // XDG_RUNTIME_DIR: the language-server client library reads it when it loads (src/lsp/).
  const env = [
    ...allowedEnvNames(input.envNames ?? []),
    ...(input.engineEnvNames ?? []),
    "DENO_DIR",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
  ];
  return {
    read,
    write,
    net: input.netHosts === true ? true : [...(input.netHosts ?? [])],
    env: [...new Set(env)],
    run: input.runPrograms ?? defaultRunPrograms(input.mode),
    // networkInterfaces: webfetch knows the machine's own addresses for local (src/tools/web/).
    sys: ["hostname", "osRelease", "homedir", "uid", "gid", "cpus", "networkInterfaces"],
    ffi: false,
    import: false,
  };
}
