/**
 * Modules loaded by a computed specifier are invisible to graph analysis, so
 * `deno task compile` includes them from src/boot/lazy_modules.ts; a module
 * missing there would be missing from the binary. This checks the list
 * against the loaders in src/cli/start.ts, main.ts, program.ts,
 * engine_commands.ts and src/engine/handle.ts.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { LAZY_LOADED_MODULES } from "../../src/boot/lazy_modules.ts";
import { MAIN } from "../support/cli.ts";

const ROOT = path.dirname(MAIN);

/** The modules `file` loads through `loader("<specifier>")`, as paths from the repository root. */
async function loadedBy(file: string, loader: RegExp): Promise<string[]> {
  const text = await Deno.readTextFile(path.join(ROOT, file));
  return [...text.matchAll(loader)].map((match) =>
    path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), match[1]))
  );
}

/** The modules `file` loads through `importLazy("<path from the root>")`. */
async function importedLazily(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(path.join(ROOT, file));
  return [...text.matchAll(/importLazy(?:<[^>]*>)?\(\s*"([^"]+)"/g)].map((match) => match[1]);
}

Deno.test("every module loaded by a computed specifier is in the compile list", async () => {
  const loaded = new Set([
    ...await importedLazily("src/cli/start.ts"),
    ...await importedLazily("src/cli/main.ts"),
    ...await loadedBy("src/cli/program.ts", /await load<[^>]*>\(\s*"([^"]+)"/g),
    ...await loadedBy("src/cli/engine_commands.ts", /await load<[^>]*>\(\s*"([^"]+)"/g),
    ...await importedLazily("src/engine/handle.ts"),
  ]);
  assertEquals([...loaded].sort(), [...LAZY_LOADED_MODULES].sort());
  for (const module of LAZY_LOADED_MODULES) await Deno.stat(path.join(ROOT, module));
});

Deno.test("the CLI loads neither the parser nor a command module by a written-out import()", async () => {
  // A written-out import() is loaded with the module graph, so every command would pay for it.
  for (
    const file of [
      "src/cli/main.ts",
      "src/cli/program.ts",
      "src/cli/command_loader.ts",
      "src/cli/engine_commands.ts",
    ]
  ) {
    const text = await Deno.readTextFile(path.join(ROOT, file));
    assertEquals(text.match(/await import\(\s*"\.\//g), null, file);
  }
});
