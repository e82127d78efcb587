/**
 * `deno task build`: bundle the engine's Worker into dist/engine, so a start
 * loads a handful of files instead of ~300 modules (src/app/engine_bundle.ts
 * says when the bundle is used, docs/performance.md what it buys).
 *
 * The stamp records every local source of the Worker's module graph (and
 * deno.json and deno.lock, which pick the npm packages) with its size and
 * mtime, taken before bundling: a file edited while the build runs leaves
 * the stamp older than the file, and the sources are used. The new build
 * replaces the old one only once it is complete.
 */
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  BUNDLE_DIR,
  BUNDLE_STAMP,
  type BundleStamp,
  STAMP_FORMAT,
} from "../src/app/engine_bundle.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ENTRY = "src/app/engine_worker.ts";
/** Not in the module graph, but they choose the npm packages bundled. */
const CONFIG_FILES = ["deno.json", "deno.lock"];

async function denoOutput(args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(`deno ${args.join(" ")} failed:\n${decoder.decode(output.stderr)}`);
  }
  return decoder.decode(output.stdout);
}

/** The local files of the Worker's module graph, relative to `root`. */
export async function engineSources(root: string): Promise<string[]> {
  const info = JSON.parse(await denoOutput(["info", "--json", ENTRY], root));
  const rootUrl = pathToFileURL(root + path.sep).href;
  const local = (info.modules as { specifier: string }[])
    .map((module) => module.specifier)
    .filter((specifier) => specifier.startsWith(rootUrl))
    .map((specifier) => decodeURIComponent(specifier.slice(rootUrl.length)));
  if (!local.includes(ENTRY)) throw new Error(`deno info did not list ${ENTRY}`);
  return [...new Set([...local, ...CONFIG_FILES])].sort();
}

function stampOf(root: string, sources: string[]): BundleStamp {
  const stamped: BundleStamp["sources"] = {};
  for (const file of sources) {
    const info = Deno.statSync(path.join(root, file));
    stamped[file] = [info.size, info.mtime?.getTime() ?? 0];
  }
  return { format: STAMP_FORMAT, deno: Deno.version.deno, sources: stamped };
}

/** The two lines esbuild writes for the `require()` calls of bundled CommonJS packages. */
const EAGER_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);";
/**
 * The same `require()`, for Node's built-in modules only (every other module
 * is in the bundle), resolved when first called. `node:module` evaluated at
 * the bundle's start costs the Worker ~25 ms; only a lazily loaded package
 * (yaml) calls it.
 */
const LAZY_REQUIRE = "var __require = (id) => {\n" +
  "  const builtin = globalThis.process.getBuiltinModule(id);\n" +
  "  if (builtin === undefined) throw new Error(`Cannot find module '${id}'`);\n" +
  "  return builtin;\n" +
  "};";

/** Rewrites esbuild's eager `require()` in the bundle's files under `dir` to LAZY_REQUIRE. */
async function lazyRequire(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const file = path.join(dir, entry.name);
    const text = await Deno.readTextFile(file);
    if (text.includes(EAGER_REQUIRE)) {
      await Deno.writeTextFile(file, text.replace(EAGER_REQUIRE, LAZY_REQUIRE));
    }
  }
}

/**
 * Bundles the engine's Worker of the checkout at `root` into
 * `root`/dist/engine. It must be two folders below the root: the bundle's
 * code resolves `../../main.ts` (the Landlock exec step's entry point) from
 * its own files, as the sources do from src/sandbox.
 */
export async function buildEngineBundle(root: string = ROOT): Promise<string> {
  const sources = await engineSources(root);
  const stamp = stampOf(root, sources);
  const out = path.join(root, BUNDLE_DIR);
  const building = `${out}.building-${Deno.pid}`;
  await Deno.remove(building, { recursive: true }).catch(() => {});
  try {
    await denoOutput([
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--code-splitting",
      "--outdir",
      building,
      ENTRY,
    ], root);
    await lazyRequire(building);
    const entry = path.join(building, "engine_worker.js");
    if (!(await Deno.stat(entry).catch(() => undefined))?.isFile) {
      throw new Error(`deno bundle wrote no ${path.relative(root, entry)}`);
    }
    await Deno.writeTextFile(path.join(building, BUNDLE_STAMP), JSON.stringify(stamp));
    await Deno.remove(out, { recursive: true }).catch(() => {});
    await Deno.rename(building, out);
  } finally {
    await Deno.remove(building, { recursive: true }).catch(() => {});
  }
  return out;
}

if (import.meta.main) {
  try {
    const started = performance.now();
    const out = await buildEngineBundle();
    const files = [...Deno.readDirSync(out)].length - 1;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.error(`built ${path.relative(Deno.cwd(), out) || out}: ${files} files in ${seconds} s`);
  } catch (error) {
    console.error(`build: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
