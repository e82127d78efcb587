/**
 * docs/architecture.md is the map a newcomer reads first: every module path it
 * names must exist. A path with a folder (`engine/permission_gate.ts`, `cli/batch/`) is
 * looked for under `src/` unless it names a top-level folder of the project;
 * bare file names (`mod.ts`) and files skiff makes at run time
 * (`engine-permissions.json`, `done.json`) are not paths and are not checked.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { exists } from "../../src/definitions/agents/discovery.ts";

const ROOT = path.resolve(import.meta.dirname!, "..", "..");
const TOP_LEVEL = ["src/", "tests/", "scripts/", "docs/", "dist/", ".ci/", "examples/"];

/** Backticked spans that look like a module path with a folder, a file or a folder. */
function namedPaths(doc: string): string[] {
  const spans = [...doc.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]);
  return [
    ...new Set(
      spans.filter((span) =>
        /^[\w.-]+(\/[\w.-]+)*(\.(ts|js|json|md|wasm)|\/)$/.test(span) && span.includes("/") &&
        !span.startsWith(".skiff/") && !span.startsWith("dist/")
      ),
    ),
  ];
}

Deno.test("every module path docs/architecture.md names exists", async () => {
  const doc = await Deno.readTextFile(path.join(ROOT, "docs", "architecture.md"));
  const named = namedPaths(doc);
  // The map names dozens of modules; an empty list means the pattern broke, not that all is well.
  if (named.length < 50) throw new Error(`only ${named.length} paths found in architecture.md`);
  const missing = named.filter((name) => {
    const fromRoot = TOP_LEVEL.some((top) => name.startsWith(top));
    return !exists(path.join(ROOT, fromRoot ? name : path.join("src", name)));
  });
  assertEquals(missing, [], `docs/architecture.md names paths that do not exist`);
});

/** Every TypeScript source of the project, as one text per file. */
async function sources(): Promise<string[]> {
  const texts: string[] = [await Deno.readTextFile(path.join(ROOT, "main.ts"))];
  for (const top of ["src", "scripts"]) {
    const walk = async (dir: string): Promise<void> => {
      for await (const entry of Deno.readDir(dir)) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory) await walk(full);
        else if (entry.name.endsWith(".ts")) texts.push(await Deno.readTextFile(full));
      }
    };
    await walk(path.join(ROOT, top));
  }
  return texts;
}

/**
 * Backticked code names: `prepare()`, `EngineSpec`, `Engine.open()`,
 * `WRITING_KEYS` — an identifier with a capital or a call, not a path, a
 * flag or a word of prose.
 */
function namedSymbols(doc: string): string[] {
  const spans = [...doc.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]);
  return [
    ...new Set(
      spans.filter((span) =>
        /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?(\(\))?$/.test(span) &&
        (span.endsWith("()") || /[A-Z]/.test(span))
      ),
    ),
  ];
}

/** Whether `name` is declared in one of `texts`: a function, class, type, constant or member. */
function declared(name: string, texts: string[]): boolean {
  const escaped = name.replace(/[$]/g, "\\$");
  const declaration = new RegExp(
    `(function\\*?|class|interface|type|const|let|enum)\\s+${escaped}\\b|^\\s*(async\\s+|static\\s+|readonly\\s+|get\\s+)*#?${escaped}\\s*[(<:=?]`,
    "m",
  );
  return texts.some((text) => declaration.test(text));
}

Deno.test("every code name docs/architecture.md mentions is declared in the sources", async () => {
  const doc = await Deno.readTextFile(path.join(ROOT, "docs", "architecture.md"));
  const names = namedSymbols(doc);
  if (names.length < 20) throw new Error(`only ${names.length} names found in architecture.md`);
  const texts = await sources();
  const missing = names.filter((span) => {
    const bare = span.replace(/\(\)$/, "");
    return !bare.split(".").every((part) => declared(part, texts));
  });
  assertEquals(missing, [], "docs/architecture.md names code that does not exist");
});
