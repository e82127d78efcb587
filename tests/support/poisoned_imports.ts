/**
 * Proof that start-up leaves a package unevaluated: skiff runs with deno.json's
 * import map, in which each poisoned package points at a stand-in that throws
 * when evaluated (a name ending in `/`, a whole package folder, points at an
 * empty folder, so loading any of its modules fails). A run that evaluates
 * one fails; each test file keeps a control run showing its poison bites.
 *
 * These runs use the sources (SKIFF_BUNDLE=0): an import map reaches only
 * what Deno resolves, and a `deno task build` bundle holds its packages
 * inside its own files. tests/engine/bundle_e2e_test.ts checks what the
 * bundle's entries import.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "./assert.ts";
import { MAIN, parseJsonLines, runMain, type Sandbox } from "./cli.ts";

const ROOT = path.dirname(MAIN);

export interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The openai package's import-map names: skiff imports its stream decoder and
 * error classes by subpath (`openai/core/…`, src/provider/chat/chat_post.ts).
 */
export const OPENAI = ["openai", "openai/"];

/** Writes the import map under `dir` and returns its path. `poisoned`: import-map names. */
export async function poisonedImportMap(dir: string, poisoned: string[]): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
  const imports: Record<string, string> = { ...config.imports };
  const poisonDir = path.join(dir, "poison");
  for (const name of poisoned) {
    const stem = name.replace(/[^a-z0-9]+/gi, "_");
    if (name.endsWith("/")) {
      const folder = path.join(poisonDir, stem);
      await Deno.mkdir(folder, { recursive: true });
      imports[name] = `${folder}/`;
    } else {
      const file = path.join(poisonDir, `${stem}.js`);
      await Deno.mkdir(poisonDir, { recursive: true });
      await Deno.writeTextFile(file, `throw new Error("POISON: ${name} was evaluated");\n`);
      imports[name] = file;
    }
  }
  const file = path.join(dir, "import_map.json");
  await Deno.writeTextFile(file, JSON.stringify({ imports }));
  return file;
}

/**
 * skiff (main.ts from source) with `importMap`, in the sandbox's isolated
 * home; `input` is written to its stdin (else stdin is empty).
 */
export function runPoisoned(
  sandbox: Sandbox,
  importMap: string,
  args: string[],
  input?: string,
): Promise<Output> {
  return runMain(MAIN, args, sandbox, {
    flags: ["--import-map", importMap],
    env: { SKIFF_BUNDLE: "0" },
    input,
  });
}

/**
 * `skiff tool read` of a one-line file (one.txt, written here) with
 * `importMap`: it must succeed and show the file, else a poisoned package
 * was evaluated. Returns the run's output for further checks.
 */
export async function readsWithPoison(sandbox: Sandbox, importMap: string): Promise<Output> {
  await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
  const result = await runPoisoned(sandbox, importMap, ["tool", "read", '{"file_path":"one.txt"}']);
  assertEquals(result.code, 0, result.stderr);
  const [line] = parseJsonLines(result.stdout);
  assertEquals(line.ok, true, result.stdout);
  assertStringIncludes(String(line.output), "hello");
  return result;
}
