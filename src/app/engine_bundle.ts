/**
 * Which module the engine's Worker runs: the engine bundled into a few files
 * (dist/engine, written by `deno task build`, scripts/build.ts) when that
 * build matches the sources, else the sources themselves.
 *
 * Loading the engine from ~210 source modules and ~100 npm ones costs the
 * Worker ~70 ms more than loading the same code from a handful of bundled
 * files (docs/performance.md). The bundle is the same code: it is used only
 * while every source it was built from has the size and modification time
 * recorded in its stamp, so an edited checkout runs its edits, never a stale
 * build. A compiled binary carries the bundle and the sources it was built
 * from together (scripts/compile.ts builds first), so it uses the bundle
 * without checking. `SKIFF_ENGINE_BUNDLE=0` runs the sources whatever is built.
 *
 * Nothing here imports more than the timings: prewarm.ts calls it before the CLI loads.
 */
import { mark } from "../contracts/timings.ts";

/** The bundle's folder, relative to the repository (or the binary's) root. */
export const BUNDLE_DIR = "dist/engine";
/** The file, in the bundle's folder, naming the sources the bundle was built from. */
export const BUNDLE_STAMP = "stamp.json";
/** The stamp's format; a stamp of another format is not read. */
export const STAMP_FORMAT = 1;

/** What `deno task build` records about a build. */
export interface BundleStamp {
  format: typeof STAMP_FORMAT;
  /** The Deno that built it: another Deno runs the sources. */
  deno: string;
  /** Each source, relative to the root, as [size in bytes, mtime in ms]. */
  sources: Record<string, [number, number]>;
}

/** Whether a build can be used, and if not, why not (for `skiff doctor`). */
export type BundleState =
  | { kind: "fresh"; module: URL }
  | { kind: "absent" }
  | { kind: "stale"; reason: string };

const ROOT = new URL("../../", import.meta.url);

/** The folder `deno task build` runs in: the repository's (or the binary's) root. */
export const BUNDLE_ROOT_PATH = decodeURIComponent(ROOT.pathname).replace(/\/$/, "");

/** The engine Worker's source module. */
export const SOURCE_ENGINE_WORKER = new URL("src/app/engine_worker.ts", ROOT);

/** The bundled Worker module under `root`, if a stamp of this format is there; not checked. */
export function bundleCandidate(root: URL = ROOT): URL | undefined {
  return !bundleOptedOut() && readStamp(root) ? bundledModule(root) : undefined;
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
  if (standalone) return { kind: "fresh", module: bundledModule(root) };
  if (stamp.deno !== Deno.version.deno) {
    return { kind: "stale", reason: `built by Deno ${stamp.deno}, running ${Deno.version.deno}` };
  }
  // Paths as strings: a URL per file costs more than its stat.
  const rootPath = decodeURIComponent(root.pathname);
  for (const [file, [size, mtime]] of Object.entries(stamp.sources)) {
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(rootPath + file);
    } catch {
      return { kind: "stale", reason: `${file} is gone` };
    }
    if (info.size !== size || info.mtime?.getTime() !== mtime) {
      return { kind: "stale", reason: `${file} changed since the build` };
    }
  }
  return { kind: "fresh", module: bundledModule(root) };
}

let chosen: URL | undefined;

/**
 * The module the engine's Worker runs in this process: the bundle when its
 * build is fresh and SKIFF_ENGINE_BUNDLE is not "0", else the source.
 * Decided once per process; `SKIFF_TIMINGS=1` shows `engine-bundle` when
 * the bundle is used.
 */
export function engineWorkerModule(): URL {
  if (chosen === undefined) {
    const state = bundleOptedOut() ? { kind: "absent" as const } : bundleState();
    chosen = state.kind === "fresh" ? state.module : SOURCE_ENGINE_WORKER;
    if (state.kind === "fresh") mark("engine-bundle");
  }
  return chosen;
}

/** SKIFF_ENGINE_BUNDLE=0: the sources, whatever is built. */
export function bundleOptedOut(): boolean {
  try {
    return Deno.env.get("SKIFF_ENGINE_BUNDLE") === "0";
  } catch {
    return false; // no env permission: nothing asked for
  }
}

function bundledModule(root: URL): URL {
  return new URL(`${BUNDLE_DIR}/engine_worker.js`, root);
}

function readStamp(root: URL): BundleStamp | undefined {
  try {
    const stamp = JSON.parse(
      Deno.readTextFileSync(new URL(`${BUNDLE_DIR}/${BUNDLE_STAMP}`, root)),
    ) as Partial<BundleStamp> | null;
    if (stamp?.format !== STAMP_FORMAT || typeof stamp.deno !== "string") return undefined;
    if (typeof stamp.sources !== "object" || stamp.sources === null) return undefined;
    const valid = Object.values(stamp.sources).every((entry) =>
      Array.isArray(entry) && entry.length === 2 && entry.every((n) => typeof n === "number")
    );
    return valid && Object.keys(stamp.sources).length > 0 ? stamp as BundleStamp : undefined;
  } catch {
    return undefined;
  }
}
