/**
 * `deno task compile`: build dist/skiff with exactly the runtime flags of
 * `deno task skiff` (read from deno.json, so the two cannot drift), include
 * the engine's and the file writer's Worker modules (the shell parser's
 * WebAssembly comes in through the module graph) and the bundle, built
 * first from the same sources (scripts/build.ts; the binary runs it,
 * src/boot/bundle.ts), then smoke-test the binary.
 *
 * `deno compile` downloads a runtime (denort) from Deno's servers unless
 * DENORT_BIN points at one; on a machine that can reach neither, this fails
 * with Deno's own message and the tests run through `deno task skiff`.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { LAZY_LOADED_MODULES } from "../src/boot/lazy_modules.ts";
import { BUNDLE_DIR, ENGINE_BUNDLE_DIR } from "../src/boot/bundle.ts";
import { buildBundle } from "./build.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/**
 * Loaded by a computed specifier (see main.ts: the CLI and every hidden step
 * in HIDDEN_STEPS) or as a Worker: not found by graph analysis.
 */
export const LAZY_MODULES = [
  "src/cli/start.ts",
  "src/sandbox/landlock/exec.ts",
  "src/sandbox/guard/replay.ts",
  "src/engine/worker_main.ts",
  "src/sandbox/writer/confined_writer_worker.ts",
  // Each command's module, the engine and the model client (src/boot/lazy_modules.ts).
  ...LAZY_LOADED_MODULES,
];

/** The flags `deno task skiff` passes to `deno run`, before the entry point. */
export async function runtimeFlags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
  const words = String(config.tasks.skiff).split(/\s+/);
  const start = words.indexOf("run") + 1;
  const end = words.indexOf("main.ts");
  if (start === 0 || end === -1) {
    throw new Error('tasks.skiff must read "deno run <flags> main.ts"');
  }
  return words.slice(start, end);
}

/**
 * Folders of npm packages the binary never reads: the shell parser needs
 * only the two .wasm files (imported as bytes, see src/permission/shell/_shell_wasm.ts),
 * not tree-sitter-bash's C sources and native builds (18 MB) or
 * web-tree-sitter's debug build. Each as `--exclude <folder>`.
 */
export async function unusedPackageFolders(): Promise<string[]> {
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], cwd: ROOT })
    .output();
  const npmCache = info.success ? JSON.parse(new TextDecoder().decode(info.stdout)).npmCache : null;
  if (typeof npmCache !== "string") return [];
  const unused: Record<string, string[]> = {
    "tree-sitter-bash": ["src", "prebuilds", "bindings"],
    "web-tree-sitter": ["debug"],
  };
  const excludes: string[] = [];
  for (const [name, folders] of Object.entries(unused)) {
    const packageDir = path.join(npmCache, "registry.npmjs.org", name);
    const versions = await Array.fromAsync(Deno.readDir(packageDir)).catch(() => []);
    for (const version of versions.filter((entry) => entry.isDirectory)) {
      for (const folder of folders) {
        excludes.push("--exclude", path.join(packageDir, version.name, folder));
      }
    }
  }
  return excludes;
}

export async function compile(output = path.join(ROOT, "dist", "skiff")): Promise<string> {
  const flags = await runtimeFlags();
  await buildBundle(ROOT);
  const includes = [...LAZY_MODULES, BUNDLE_DIR, ENGINE_BUNDLE_DIR].flatMap((
    module,
  ) => ["--include", module]);
  // deno.json turns raw imports on for `deno run`; say it to compile as well, for the binary.
  const args = [
    "compile",
    "--frozen",
    "--unstable-raw-imports",
    ...flags,
    ...includes,
    ...await unusedPackageFolders(),
    "--output",
    output,
    "main.ts",
  ];
  console.error(`deno ${args.join(" ")}`);
  if (Deno.env.get("DENORT_BIN")) {
    console.error(`using the runtime at DENORT_BIN=${Deno.env.get("DENORT_BIN")}`);
  }
  const status = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT }).spawn().status;
  if (!status.success) {
    throw new Error(
      "deno compile failed. It needs Deno's runtime (denort): either network access to Deno's servers or DENORT_BIN pointing at a denort binary of the same version.",
    );
  }
  const smoke = await new Deno.Command(output, { args: ["--version"], stdout: "piped" }).output();
  const version = new TextDecoder().decode(smoke.stdout).trim();
  if (!smoke.success || !version.startsWith("skiff ")) {
    throw new Error(`the compiled binary did not answer --version (got "${version}")`);
  }
  console.error(`built ${output} (${version})`);
  return output;
}

if (import.meta.main) {
  try {
    await compile(Deno.args[0]);
  } catch (error) {
    console.error(`compile: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
