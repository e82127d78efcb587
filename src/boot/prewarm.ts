/**
 * The engine's Worker started at the very beginning of a process, so that
 * its start (a second isolate loading and evaluating the engine's modules,
 * most of a short command's time) runs beside the CLI's own start instead of
 * after it.
 *
 * A Worker's Deno permissions are fixed when it is created, and the ones the
 * engine gets are derived from the config, which is not loaded yet. So the
 * Worker is started with the permissions derived the last time the same
 * command ran in the same folder (kept in the data folder), and it is used
 * only if the permissions derived now are exactly the same
 * (`permissionKey`); otherwise it is ended and a new one starts, as without
 * this. Until then it only loads skiff's own modules (and, for `skiff tool
 * <name>`, builds that tool's input schema): it is sent nothing else, so a
 * stale or edited file can cost a wasted start, never a Worker with other
 * permissions than the derived ones.
 *
 * Nothing here imports more than a few small modules of no dependencies: this
 * runs before anything else loads, and main.ts's graph stays small.
 */
import { normalize, resolveDataDir } from "../store/data_dir_path.ts";
import { permissionKey } from "../lib/permission_key.ts";
import { mark } from "./timings.ts";
import { bundleCandidate, engineWorkerModule, SOURCE_ENGINE_WORKER } from "./bundle.ts";
import { writeFileAtomicSync } from "../lib/atomic_write.ts";

/** The file, in the data folder, of the permissions last derived per command and folder. */
export const PERMISSIONS_FILE = "engine-permissions.json";
const MAX_ENTRIES = 32;
/** A file larger than this is not read: it was not written by skiff. */
const MAX_FILE_BYTES = 256 * 1024;

/** The commands that start one engine (`skiff` alone opens the chat). */
type EngineCommand = "run" | "tool" | "chat";

interface Remembered {
  key: string;
  permissions: Deno.PermissionOptionsObject;
}

/** This start's file and key, and the permissions remembered under the key when it began. */
interface Intent {
  file: string;
  key: string;
  /** The engine module the key is for. */
  module: string;
  remembered?: Deno.PermissionOptionsObject;
}

interface Warm {
  worker: Worker;
  module: URL;
  key: string;
  failed: boolean;
}

/**
 * This process's pre-started Worker and intent, on the global object: main.ts
 * starts the Worker from its own copy of this module, and the bundle's copy
 * (src/boot/bundle.ts) takes it.
 */
const state = ((globalThis as { [key: symbol]: unknown })[Symbol.for("skiff.prewarm")] ??= {}) as {
  intent?: Intent;
  warm?: Warm;
};

/** Arguments that end in help or a version, never in a command. */
const NO_COMMAND = new Set(["--help", "-h", "--version", "-V", "help"]);

/**
 * The command `args` most likely run, if it starts an engine and is not a
 * request for help: the one guess both this Worker and the CLI's early load
 * of the command's module (src/cli/command_loader.ts) are made on. Parsing
 * still decides what runs.
 */
export function engineCommandOf(args: readonly string[]): EngineCommand | undefined {
  if (args.some((arg) => NO_COMMAND.has(arg))) return undefined;
  const first = args[0];
  if (first === "run" || first === "tool" || first === "chat") return first;
  // `skiff` alone, or with the chat's own options first (`-c`, `--resume`, `-m x`), is the chat.
  return first === undefined || first.startsWith("-") ? "chat" : undefined;
}

/**
 * Starts the engine's Worker for `args` with the permissions remembered for
 * this command in this folder, if any. Does nothing for SKIFF_ENGINE=inline,
 * or SKIFF_PREWARM=0 (what the bench compares with); any failure leaves the engine
 * to start as it would without this. `module`: the engine's module; by
 * default the bundle's when a build is there, before main.ts has checked it
 * (the Worker's start need not wait for that check; `settlePrewarm` after).
 * The bundled engine may read the bundle's folder, so its permissions are
 * remembered apart from the sources'.
 */
export function prewarmEngine(
  args: readonly string[],
  module: URL = bundleCandidate() ?? SOURCE_ENGINE_WORKER,
): void {
  const command = engineCommandOf(args);
  if (command === undefined) return;
  try {
    if (Deno.env.get("SKIFF_ENGINE") === "inline" || Deno.env.get("SKIFF_PREWARM") === "0") return;
    const env = Deno.env.toObject();
    const folder = userFolder(env);
    const dataDir = resolveDataDir(env, () => folder);
    const file = `${dataDir}/${PERMISSIONS_FILE}`;
    const key = `${command}\n${folder}${workspaceFlag(args)}${keySuffix(module)}`;
    const permissions = readRemembered(file).find((entry) => entry.key === key)?.permissions;
    state.intent = { file, key, module: module.href, remembered: permissions };
    if (permissions === undefined) return;
    state.warm = startWarm(module, permissions, command, dataDir);
  } catch {
    // No env or cwd, no --unstable-worker-options: the engine starts when the command asks.
  }
}

/**
 * What a key ends with: the engine module it is for. The bundled engine's
 * permissions differ (it reads its folder), and so do two copies of skiff's
 * (a checkout and an installed one, say): each keeps its own entry, where a
 * shared one made every start of the other discard its Worker and build a new one.
 */
export function keySuffix(module: URL): string {
  return `\n${module.href}`;
}

/**
 * Once main.ts has checked the build: a Worker started on a bundle that
 * turned out stale (or the reverse) is ended, and the engine this start
 * runs is started instead, with the permissions remembered for it.
 */
export function settlePrewarm(args: readonly string[]): void {
  const module = engineWorkerModule();
  if (state.intent === undefined || state.intent.module === module.href) return;
  state.warm?.worker.terminate();
  state.warm = undefined;
  state.intent = undefined;
  prewarmEngine(args, module);
}

function startWarm(
  module: URL,
  permissions: Deno.PermissionOptionsObject,
  command: EngineCommand,
  dataDir: string,
): Warm {
  const worker = new Worker(module, {
    type: "module",
    name: "skiff-engine",
    deno: { permissions },
  });
  const started = { worker, module, key: permissionKey(permissions), failed: false };
  worker.onerror = (event) => {
    event.preventDefault();
    started.failed = true;
  };
  // ToEngine's "warm" (engine/protocol.ts), written out: even a type import would put the
  // engine's modules in main.ts's graph, which `deno info` and the exec step's test read.
  worker.postMessage({ type: "warm", provider: command !== "tool", dataDir });
  return started;
}

/**
 * The folder the CLI will work in: `deno task skiff` starts in the
 * repository and the CLI moves to INIT_CWD, where the user was
 * (src/cli/main.ts), before it resolves the data folder or the workspace.
 */
function userFolder(env: Record<string, string>): string {
  const initCwd = env.INIT_CWD;
  return initCwd?.startsWith("/") ? normalize(initCwd) : Deno.cwd();
}

/** `--dir`'s value (the workspace, the last one given) as a part of the key, or "". */
function workspaceFlag(args: readonly string[]): string {
  let dir: string | undefined;
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    if (args[i] === "--dir") dir = args[++i];
    else if (args[i].startsWith("--dir=")) dir = args[i].slice("--dir=".length);
  }
  return dir === undefined ? "" : `\n--dir ${dir}`;
}

/**
 * `skiff tool <name>` parsed: the pre-started Worker, if there is one, builds
 * that tool's input schema while the config loads ("warm-tool" in
 * engine/protocol.ts, written out here for the same reason as "warm").
 */
export function prewarmTool(name: string): void {
  state.warm?.worker.postMessage({ type: "warm-tool", name });
}

/**
 * The pre-started Worker, if its permissions are exactly `permissions` and
 * it is the module asked for; else undefined (a Worker that does not fit is
 * ended). Remembers `permissions` for the next start of this command here.
 * Only the first engine of a process is asked for.
 */
export function takePrewarmed(
  permissions: Deno.PermissionOptionsObject,
  workerModule: URL,
): Worker | undefined {
  const started = state.warm;
  const wanted = state.intent;
  state.warm = undefined;
  state.intent = undefined;
  const engineModule = workerModule.href === engineWorkerModule().href;
  if (wanted && engineModule && wanted.module === workerModule.href) remember(wanted, permissions);
  if (started === undefined) return undefined;
  const sameModule = started.module.href === workerModule.href;
  if (
    started.failed || !engineModule || !sameModule || started.key !== permissionKey(permissions)
  ) {
    started.worker.terminate();
    mark("prewarm-discarded");
    return undefined;
  }
  mark("prewarm-used");
  return started.worker;
}

/** The remembered entries, newest first; none when the file is missing or not skiff's. */
function readRemembered(file: string): Remembered[] {
  try {
    if (Deno.statSync(file).size > MAX_FILE_BYTES) return [];
    const parsed: unknown = JSON.parse(Deno.readTextFileSync(file));
    const entries = (parsed as { entries?: unknown })?.entries;
    return Array.isArray(entries) ? entries.filter(isRemembered).slice(0, MAX_ENTRIES) : [];
  } catch {
    return [];
  }
}

const PERMISSION_NAMES = new Set(["read", "write", "net", "env", "run", "ffi", "sys", "import"]);

/** An entry whose permissions are lists of names or booleans, as `permissionsFor` derives. */
function isRemembered(value: unknown): value is Remembered {
  const entry = value as Partial<Remembered> | null;
  if (typeof entry?.key !== "string" || typeof entry.permissions !== "object") return false;
  if (entry.permissions === null || Array.isArray(entry.permissions)) return false;
  return Object.entries(entry.permissions).every(([name, given]) =>
    PERMISSION_NAMES.has(name) &&
    (typeof given === "boolean" ||
      (Array.isArray(given) && given.every((item) => typeof item === "string")))
  );
}

/**
 * Keeps `permissions` first for the command and folder, if they changed. The
 * file is read again first: this start may have waited (a prompt on stdin,
 * the chat's first message) while other starts wrote theirs. A file that
 * cannot be written costs the next start its head start, nothing else, so a
 * failure is not reported.
 */
function remember(wanted: Intent, permissions: Deno.PermissionOptionsObject): void {
  const before = wanted.remembered;
  if (before && permissionKey(before) === permissionKey(permissions)) return;
  const entries = [
    { key: wanted.key, permissions },
    ...readRemembered(wanted.file).filter((entry) => entry.key !== wanted.key),
  ].slice(0, MAX_ENTRIES);
  try {
    writeFileAtomicSync(wanted.file, new TextEncoder().encode(JSON.stringify({ entries })), 0o600);
  } catch { /* not remembered: the next start asks again */ }
}
