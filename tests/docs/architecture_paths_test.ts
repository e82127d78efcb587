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
