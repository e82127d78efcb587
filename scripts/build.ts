/**
 * `deno task build`: bundle skiff, so a start loads a handful of files
 * instead of ~400 modules (src/boot/bundle.ts says when the bundle is used,
 * docs/performance.md what it buys). Two entries, each bundled with code
 * splitting into its own folder: the CLI's start (src/cli/start.ts →
 * dist/bundle/start.js) and the engine's Worker (src/engine/worker_main.ts →
 * dist/engine/worker_main.js).
 *
 * The CLI loads commands by computed specifiers (src/boot/lazy_import.ts),
 * which a bundler cannot follow: its bundle is made with an import map that
 * puts in place of lazy_import.ts a module writing each of those imports
 * out, so each becomes a chunk loaded when first imported. The engine's
 * bundle is made from the sources as they are.
 *
 * The stamp records every local source of both module graphs (and deno.json
 * and deno.lock, which pick the npm packages) with its size, mtime and hash, taken
 * before bundling: a file edited while the build runs leaves the stamp older
 * than the file, and the sources are used. The new build replaces the old
 * one only once it is complete.
 */
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  BUNDLE_DIR,
  BUNDLE_STAMP,
  type BundleStamp,
  ENGINE_BUNDLE_DIR,
  STAMP_FORMAT,
} from "../src/boot/bundle.ts";
import { LAZY_LOADED_MODULES } from "../src/boot/lazy_modules.ts";
import { sha256Hex } from "../src/lib/sha256.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI_ENTRY = "src/cli/start.ts";
const ENGINE_ENTRY = "src/engine/worker_main.ts";
const LAZY_IMPORT = "src/boot/lazy_import.ts";
/** Not in the module graphs, but they choose the npm packages bundled. */
const CONFIG_FILES = ["deno.json", "deno.lock"];

async function deno(args: string[], cwd: string): Promise<string> {
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

/**
 * The local files of both graphs, lazily loaded modules included, relative
 * to `root`: `deno info` of one module (in `scratch`, two folders below the
 * root) importing every entry.
 */
export async function bundleSources(root: string, scratch: string): Promise<string[]> {
  const entries = [CLI_ENTRY, ENGINE_ENTRY, ...LAZY_LOADED_MODULES];
  const all = path.join(scratch, "all.ts");
  await Deno.writeTextFile(all, entries.map((entry) => `import "../../${entry}";\n`).join(""));
  const info = JSON.parse(await deno(["info", "--json", all], root));
  const rootUrl = pathToFileURL(root + path.sep).href;
  const local = (info.modules as { specifier: string }[])
    .map((module) => module.specifier)
    .filter((specifier) => specifier.startsWith(rootUrl))
    .map((specifier) => decodeURIComponent(specifier.slice(rootUrl.length)))
    .filter((file) => !file.startsWith(path.relative(root, scratch)));
  for (const entry of entries) {
    if (!local.includes(entry)) throw new Error(`deno info did not list ${entry}`);
  }
  return [...new Set([...local, ...CONFIG_FILES])].sort();
}

function stampOf(root: string, sources: string[]): BundleStamp {
  const stamped: BundleStamp["sources"] = {};
  for (const file of sources) {
    const info = Deno.statSync(path.join(root, file));
    const digest = sha256Hex(Deno.readFileSync(path.join(root, file)));
    stamped[file] = [info.size, info.mtime?.getTime() ?? 0, digest];
  }
  return { format: STAMP_FORMAT, deno: Deno.version.deno, sources: stamped };
}

/** lazy_import.ts for the bundle: each lazily loaded module's import written out. */
function writtenOutLazyImport(): string {
  const cases = LAZY_LOADED_MODULES.map((module) =>
    `    case ${JSON.stringify(module)}:\n      return import(${
      JSON.stringify(`../../${module}`)
    });`
  );
  return [
    "// Written by scripts/build.ts for the bundle, in place of src/boot/lazy_import.ts.",
    "export function importLazy(module) {",
    "  switch (module) {",
    ...cases,
    "  }",
    "  return Promise.reject(new Error(`skiff bug: ${module} is not a lazily loaded module`));",
    "}",
    "",
  ].join("\n");
}

/** The project's config, with lazy_import.ts mapped to `replacement`, for the CLI's bundle. */
async function cliConfig(root: string, scratch: string): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(path.join(root, "deno.json")));
  const fromScratch = (file: string) => path.relative(scratch, path.join(root, file));
  const replacement = path.join(scratch, "lazy_import.js");
  await Deno.writeTextFile(replacement, writtenOutLazyImport());
  const imports = { ...config.imports, [fromScratch(LAZY_IMPORT)]: "./lazy_import.js" };
  const file = path.join(scratch, "deno.json");
  await Deno.writeTextFile(file, JSON.stringify({ imports, unstable: config.unstable ?? [] }));
  return file;
}

/** A chunk's `import()`, as esbuild writes it. */
const WRITTEN_OUT_IMPORT = /\bimport\("(\.\/[\w.-]+\.js)"\)/g;
/** The chunk of src/cli/chat/chat.ts (esbuild names a lazily loaded module's chunk after it). */
const CHAT_CHUNK = /^chat-[\w]+\.js$/;

/**
 * Deno loads every written-out `import()` with the module graph, in a
 * bundle as in the sources, so the chunks' are made computed, each loaded
 * when first run: start.js would otherwise load every command's chunk, the
 * inline engine and the model client's before anything runs, and the
 * engine's Worker the MCP client, the HTML converter and the shell parser's
 * WebAssembly. The engine's Worker may read its bundle's folder for that
 * (src/host/worker_client.ts `permissionsFor`). `keep`: files whose imports
 * stay written out. The chat's do: with its slash-command registry's import
 * computed, `skiff` at a TERM=dumb terminal loses its prompt line (the tmux
 * test), so its terminal code keeps the sources' timing.
 */
async function computedImports(dir: string, keep: RegExp = /^$/): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js") || keep.test(entry.name)) continue;
    const file = path.join(dir, entry.name);
    const text = await Deno.readTextFile(file);
    const computed = text.replace(
      WRITTEN_OUT_IMPORT,
      (_, chunk: string) => `import(new URL(${JSON.stringify(chunk)}, import.meta.url).href)`,
    );
    if (computed !== text) await Deno.writeTextFile(file, computed);
  }
}

/** The two lines esbuild writes for the `require()` calls of bundled CommonJS packages. */
const EAGER_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);";
/**
 * The same `require()`, for Node's built-in modules only (every other module
 * is in the bundle), resolved when first called: `node:module` evaluated at
 * the bundle's start would cost every start; only lazily loaded packages call it.
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

/** How web-tree-sitter's emscripten glue decides it runs under Node. */
const GLUE_NODE_CHECK =
  'var ENVIRONMENT_IS_NODE = typeof process == "object" && process.versions?.node && process.type != "renderer";';
const GLUE_NOT_NODE = "var ENVIRONMENT_IS_NODE = false;";

/**
 * The shell parser's glue (web-tree-sitter) takes Deno, whose `process` says
 * Node, for Node, and loads `node:module`, `fs`, `path` and `url` at its
 * first bash call (in the engine's Worker) to read files it is never
 * asked for: shell_parser.ts hands it both WebAssembly modules as bytes. In
 * the bundle it is told it is not Node. A glue whose check reads otherwise
 * (a new version) fails the build, so the rewrite is never silently lost.
 */
async function parserGlueNotNode(dir: string): Promise<void> {
  let found = false;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const file = path.join(dir, entry.name);
    const text = await Deno.readTextFile(file);
    if (!text.includes("var ENVIRONMENT_IS_NODE")) continue;
    if (!text.includes(GLUE_NODE_CHECK)) {
      throw new Error(
        `${entry.name}: web-tree-sitter's Node check changed; update GLUE_NODE_CHECK in scripts/build.ts`,
      );
    }
    await Deno.writeTextFile(file, text.replace(GLUE_NODE_CHECK, GLUE_NOT_NODE));
    found = true;
  }
  if (!found) throw new Error(`no web-tree-sitter glue in ${dir}: is the shell parser bundled?`);
}

/** esbuild's line for a module imported as bytes: the module's path above it, then its base64. */
const BYTES_MODULE = /^\/\/ (\S+\.wasm)\nvar (\w+) = __toBinary\("([A-Za-z0-9+/]*={0,2})"\);$/gm;
/** The chunk's import of esbuild's base64 decoder. */
const DECODER_IMPORT = /^import \{\s*__toBinary\s*\} from "\.\/[\w.-]+\.js";$/m;
/** The chunk's exports. */
const CHUNK_EXPORTS = /^export \{[^}]*\};$/m;

/**
 * The shell parser's two WebAssembly modules (src/permission/shell/_shell_wasm.ts)
 * as files imported as bytes, as in the sources. esbuild writes them into
 * the chunk as base64 (2 MB of JavaScript) decoded by a loop in JavaScript,
 * which a process's first bash call would wait for; imported as bytes, the
 * two files load several times faster (docs/performance.md). The bytes
 * are the chunk's own, decoded here. A chunk that holds anything else (a
 * new esbuild) fails the build.
 */
async function parserWasmAsBytes(dir: string): Promise<void> {
  const chunks = [...Deno.readDirSync(dir)].filter((entry) =>
    entry.isFile && /^_shell_wasm-[\w]+\.js$/.test(entry.name)
  );
  if (chunks.length !== 1) {
    throw new Error(`expected one _shell_wasm chunk in ${dir}, found ${chunks.length}`);
  }
  const file = path.join(dir, chunks[0].name);
  const text = await Deno.readTextFile(file);
  const imports: string[] = [];
  for (const [, source, name, base64] of text.matchAll(BYTES_MODULE)) {
    const wasm = path.basename(source);
    await Deno.writeFile(path.join(dir, wasm), Uint8Array.fromBase64(base64));
    imports.push(`import ${name} from "./${wasm}" with { type: "bytes" };`);
  }
  const exports = text.match(CHUNK_EXPORTS)?.[0];
  const rest = text.replace(BYTES_MODULE, "").replace(DECODER_IMPORT, "")
    .replace(CHUNK_EXPORTS, "").trim();
  if (imports.length !== 2 || exports === undefined || rest !== "") {
    throw new Error(
      `${
        chunks[0].name
      }: not the two WebAssembly modules esbuild used to write; update parserWasmAsBytes in scripts/build.ts`,
    );
  }
  await Deno.writeTextFile(
    file,
    [
      "// Written by scripts/build.ts: the shell parser's WebAssembly, imported as bytes.",
      ...imports,
      exports,
      "",
    ].join("\n"),
  );
}

/**
 * Bundles the checkout at `root` into `root`/dist/bundle (the CLI, and the
 * stamp) and `root`/dist/engine (the engine's Worker). Each must be two
 * folders below the root: the bundles' code resolves paths such as
 * `../../main.ts` (the Landlock exec step's entry point) from its own
 * files, as the sources do from their folders under src/. The old stamp
 * goes first and the new one comes last, so a start in between runs the
 * sources.
 */
export async function buildBundle(root: string = ROOT): Promise<string> {
  const out = path.join(root, BUNDLE_DIR);
  const engineOut = path.join(root, ENGINE_BUNDLE_DIR);
  const building = `${out}.building-${Deno.pid}`;
  const engineBuilding = `${engineOut}.building-${Deno.pid}`;
  const scratch = path.join(path.dirname(out), `.scratch-${Deno.pid}`);
  await Deno.mkdir(scratch, { recursive: true });
  try {
    const sources = await bundleSources(root, scratch);
    const stamp = stampOf(root, sources);
    const bundle = ["bundle", "--quiet", "--platform", "deno", "--code-splitting"];
    const lock = ["--lock", path.join(root, "deno.lock"), "--frozen"];
    await deno([...bundle, "--outdir", engineBuilding, ENGINE_ENTRY], root);
    const config = await cliConfig(root, scratch);
    await deno([...bundle, "--config", config, ...lock, "--outdir", building, CLI_ENTRY], root);
    await computedImports(engineBuilding);
    await computedImports(building, CHAT_CHUNK);
    for (const [dir, entry] of [[engineBuilding, "worker_main.js"], [building, "start.js"]]) {
      await lazyRequire(dir);
      await parserGlueNotNode(dir);
      await parserWasmAsBytes(dir);
      if (!(await Deno.stat(path.join(dir, entry)).catch(() => undefined))?.isFile) {
        throw new Error(`deno bundle wrote no ${entry}`);
      }
    }
    await Deno.writeTextFile(path.join(building, BUNDLE_STAMP), JSON.stringify(stamp));
    await Deno.remove(path.join(out, BUNDLE_STAMP)).catch(() => {});
    await Deno.remove(engineOut, { recursive: true }).catch(() => {});
    await Deno.rename(engineBuilding, engineOut);
    await Deno.remove(out, { recursive: true }).catch(() => {});
    await Deno.rename(building, out);
  } finally {
    for (const dir of [building, engineBuilding, scratch]) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }
  return out;
}

if (import.meta.main) {
  try {
    const started = performance.now();
    const out = await buildBundle();
    const files = [...Deno.readDirSync(out)].length - 1 +
      [...Deno.readDirSync(path.join(ROOT, ENGINE_BUNDLE_DIR))].length;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const where = path.relative(Deno.cwd(), path.dirname(out)) || ".";
    console.error(`built ${where}/bundle and ${where}/engine: ${files} files in ${seconds} s`);
  } catch (error) {
    console.error(`build: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
