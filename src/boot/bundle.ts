/**
 * Which code a start runs: skiff bundled into a few files (written by
 * `deno task build`, scripts/build.ts) when that build matches the sources,
 * else the sources themselves. The build holds two bundles: the CLI's start
 * (dist/bundle/start.js, what main.ts loads; the stamp is beside it) and the
 * engine's Worker (dist/engine/worker_main.js).
 *
 * Loading hundreds of source and npm modules costs a start far more than
 * loading the same code from a handful of bundled files (docs/performance.md).
 * The bundle is the same code: it is used only while every source it was
 * built from has the size and content recorded in its stamp, so an edited
 * checkout runs its edits, never a stale build. The modification time is
 * the quick test: a file whose time still matches is not read; one whose
 * time changed (a checkout that put the same content back) is hashed. A compiled binary
 * carries the bundle and the sources it was built from together
 * (scripts/compile.ts builds first), so it uses the bundle without checking.
 * `SKIFF_BUNDLE=0` runs the sources whatever is built.
 *
 * main.ts decides once, before anything else loads; the decision is kept on
 * the global object because the bundle holds its own copy of this module.
 * It imports only what names skiff's entries and the hash.
 */
import { CLI_START_SOURCE, ENGINE_WORKER_SOURCE } from "../contracts/entry.ts";
import { sha256Hex } from "../lib/sha256.ts";

/** The CLI's bundle and the build's stamp, relative to the repository (or the binary's) root. */
export const BUNDLE_DIR = "dist/bundle";
/** The engine Worker's bundle, beside it: two folders below the root as well (scripts/build.ts). */
export const ENGINE_BUNDLE_DIR = "dist/engine";
/** The file, in the bundle's folder, naming the sources the bundle was built from. */
export const BUNDLE_STAMP = "stamp.json";
/** The stamp's format; a stamp of another format is not read. */
export const STAMP_FORMAT = 3;

/** What `deno task build` records about a build. */
export interface BundleStamp {
  format: typeof STAMP_FORMAT;
  /** The Deno that built it: another Deno runs the sources. */
  deno: string;
  /** Each source, relative to the root, as [size in bytes, mtime in ms, SHA-256 in hex]. */
  sources: Record<string, [number, number, string]>;
}

/** Whether a build can be used, and if not, why not (for `skiff doctor`). */
export type BundleState =
  | { kind: "fresh"; dir: URL; engineDir: URL }
  | { kind: "absent" }
  | { kind: "stale"; reason: string };

const ROOT = new URL("../../", import.meta.url);

/** The folder `deno task build` runs in: the repository's (or the binary's) root. */
export const BUNDLE_ROOT_PATH = decodeURIComponent(ROOT.pathname).replace(/\/$/, "");

/** The engine Worker's source module. */
export const SOURCE_ENGINE_WORKER = ENGINE_WORKER_SOURCE;
/** The CLI's start, from the sources. */
export const SOURCE_START = CLI_START_SOURCE;

/**
 * The bundled engine Worker under `root` if a stamp of this format is there,
 * not checked (SKIFF_BUNDLE=0: none): what the pre-started Worker loads
 * while main.ts checks the build.
 */
export function bundleCandidate(root: URL = ROOT): URL | undefined {
  return !bundleOptedOut() && readStamp(root)
    ? new URL(`${ENGINE_BUNDLE_DIR}/worker_main.js`, root)
    : undefined;
}

/**
 * Whether the build under `root` matches its sources. `standalone` (a
 * compiled binary) trusts a build that is present.
 */
export function bundleState(
  root: URL = ROOT,
  standalone: boolean = Deno.build.standalone,
): BundleState {
  const stamp = readStamp(root);
  if (!stamp) return { kind: "absent" };
  const dir = new URL(`${BUNDLE_DIR}/`, root);
  const engineDir = new URL(`${ENGINE_BUNDLE_DIR}/`, root);
  if (standalone) return { kind: "fresh", dir, engineDir };
  if (stamp.deno !== Deno.version.deno) {
    return { kind: "stale", reason: `built by Deno ${stamp.deno}, running ${Deno.version.deno}` };
  }
  // Paths as strings: a URL per file costs more than its stat.
  const rootPath = decodeURIComponent(root.pathname);
  for (const [file, [size, mtime, digest]] of Object.entries(stamp.sources)) {
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(rootPath + file);
    } catch {
      return { kind: "stale", reason: `${file} is gone` };
    }
    if (
      info.size !== size ||
      (info.mtime?.getTime() !== mtime && !sameContent(rootPath + file, digest))
    ) {
      return { kind: "stale", reason: `${file} changed since the build` };
    }
  }
  return { kind: "fresh", dir, engineDir };
}

const DECIDED = Symbol.for("skiff.bundle-state");

/**
 * This process's decision: the build's state, or absent when SKIFF_BUNDLE
 * is "0". Made once (the first call stats every source of the stamp) and shared by
 * every copy of this module.
 */
export function buildState(): BundleState {
  const shared = globalThis as { [DECIDED]?: BundleState };
  return shared[DECIDED] ??= bundleOptedOut() ? { kind: "absent" } : bundleState();
}

/** The module main.ts starts the CLI from. */
export function startModule(): URL {
  const state = buildState();
  return state.kind === "fresh" ? new URL("start.js", state.dir) : SOURCE_START;
}

/** The module the engine's Worker runs. */
export function engineWorkerModule(): URL {
  const state = buildState();
  return state.kind === "fresh" ? new URL("worker_main.js", state.engineDir) : SOURCE_ENGINE_WORKER;
}

/**
 * The bundle's folder when this process runs it, else undefined: the
 * engine's Worker may read it, to load its chunks when first needed.
 */
export function bundleReadDir(): string | undefined {
  const state = buildState();
  return state.kind === "fresh"
    ? decodeURIComponent(state.engineDir.pathname).replace(/\/$/, "")
    : undefined;
}

/** SKIFF_BUNDLE=0: the sources, whatever is built. */
export function bundleOptedOut(): boolean {
  try {
    return Deno.env.get("SKIFF_BUNDLE") === "0";
  } catch {
    return false; // no env permission: nothing asked for
  }
}

/** Whether `file` still holds what hashed to `digest` (its time changed, not its content). */
function sameContent(file: string, digest: string): boolean {
  try {
    return sha256Hex(Deno.readFileSync(file)) === digest;
  } catch {
    return false;
  }
}

function readStamp(root: URL): BundleStamp | undefined {
  try {
    const stamp = JSON.parse(
      Deno.readTextFileSync(new URL(`${BUNDLE_DIR}/${BUNDLE_STAMP}`, root)),
    ) as Partial<BundleStamp> | null;
    if (stamp?.format !== STAMP_FORMAT || typeof stamp.deno !== "string") return undefined;
    if (typeof stamp.sources !== "object" || stamp.sources === null) return undefined;
    const valid = Object.values(stamp.sources).every((entry) =>
      Array.isArray(entry) && entry.length === 3 && typeof entry[0] === "number" &&
      typeof entry[1] === "number" && typeof entry[2] === "string"
    );
    return valid && Object.keys(stamp.sources).length > 0 ? stamp as BundleStamp : undefined;
  } catch {
    return undefined;
  }
}
