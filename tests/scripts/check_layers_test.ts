import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  findCycles,
  findPrivateReaches,
  findViolations,
  LAYERS,
} from "../../scripts/check_layers.ts";

const script = new URL("../../scripts/check_layers.ts", import.meta.url);

function run(root?: string): Deno.CommandOutput {
  const args = ["run", "--allow-read", script.pathname, ...(root ? [root] : [])];
  return new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "piped" }).outputSync();
}

Deno.test("the import-direction check passes on src/ as it is, naming the layer order", () => {
  const result = run();
  const out = new TextDecoder().decode(result.stdout);
  assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
  assertStringIncludes(out, `(${LAYERS.join(" < ")}): none goes up`);
});

Deno.test("the check reports an import from a higher layer, type-only, dynamic and Worker ones too", () => {
  const files = new Map([
    ["sandbox/a.ts", 'import type { Tool } from "../tools/tool.ts";\n'],
    ["store/b.ts", 'const m = await import("../session/loop.ts");\n'],
    ["policy/c.ts", 'new Worker(new URL("../app/worker.ts", import.meta.url));\n'],
    [
      "provider/d.ts",
      'import {\n  type Usage,\n} from "../contracts/events.ts";\nimport "./e.ts";\n',
    ],
    ["tools/f.ts", 'export { x } from "../sandbox/paths.ts";\n'],
  ]);
  const found = findViolations(files).map((v) => `${v.from} → ${v.to}`);
  assertEquals(found, [
    "policy/c.ts → app/worker.ts",
    "sandbox/a.ts → tools/tool.ts",
    "store/b.ts → session/loop.ts",
  ]);
});

Deno.test("the check fails with each violation on its own line, and on an unknown folder", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/src/store`, { recursive: true });
    await Deno.mkdir(`${root}/src/extras`, { recursive: true });
    await Deno.writeTextFile(`${root}/src/store/a.ts`, 'import type { X } from "../ui/text.ts";\n');
    await Deno.writeTextFile(`${root}/src/extras/b.ts`, "export const b = 1;\n");
    const result = run(root);
    const err = new TextDecoder().decode(result.stderr);
    assertEquals(result.code, 1);
    assertStringIncludes(err, "src/store/a.ts → src/ui/text.ts (store may not import ui)");
    assertStringIncludes(err, "src/extras is not in the layer order");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("contracts may import no package, only node: built-ins", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/src/contracts`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/src/contracts/a.ts`,
      'import { createHash } from "node:crypto";\nimport type { z } from "zod";\n',
    );
    const result = run(root);
    assertEquals(result.code, 1);
    const err = new TextDecoder().decode(result.stderr);
    assertStringIncludes(err, "src/contracts/a.ts → zod");
    assert(!err.includes("node:crypto"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("docs/architecture.md's layer table lists the layers the check enforces, in order", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/architecture.md", import.meta.url));
  const rows = [...doc.matchAll(/^\| `([^`]+)` +\|/gm)].map((match) => match[1]);
  assertEquals(rows, [...LAYERS]);
});

Deno.test("a `_` module may be imported only from its own folder", () => {
  const files = new Map([
    ["tools/files/read.ts", 'import { x } from "./_file_io.ts";\n'],
    ["tools/search/grep.ts", 'import { y } from "../files/_file_io.ts";\n'],
    ["session/undo.ts", 'import type { Z } from "../tools/files/_file_io.ts";\n'],
    ["app/engine.ts", 'import { FileLedger } from "../tools/files/mod.ts";\n'],
  ]);
  const reaches = findPrivateReaches(files).map((r) => `${r.from} → ${r.to}`);
  assertEquals(reaches, [
    "session/undo.ts → tools/files/_file_io.ts",
    "tools/search/grep.ts → tools/files/_file_io.ts",
  ]);
});

Deno.test("root-relative URLs count: one into a higher layer, or out to the root, is reported", () => {
  const files = new Map([
    // The probe the layer check once let through: the bottom layer naming the CLI.
    ["contracts/a.ts", 'const cli = new URL("../../src/cli/main.ts", import.meta.url);\n'],
    ["sandbox/b.ts", 'const entry = new URL("../../main.ts", import.meta.url);\n'],
    // Root-relative and downward, or within the layer: fine.
    ["tools/c.ts", 'new Worker(new URL("../../src/sandbox/w.ts", import.meta.url));\n'],
    ["sandbox/d.ts", 'const w = new URL("../../src/sandbox/x.ts", import.meta.url);\n'],
  ]);
  const found = findViolations(files).map((v) => `${v.from} → ${v.to} (${v.toLayer})`);
  assertEquals(found, [
    "contracts/a.ts → cli/main.ts (cli)",
    "sandbox/b.ts → ../main.ts (the project's root)",
  ]);
});

Deno.test("the check fails on a planted root-relative upward URL, naming it as written from the root", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/src/contracts`, { recursive: true });
    await Deno.mkdir(`${root}/src/cli`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/src/contracts/a.ts`,
      'export const cli = new URL("../../src/cli/main.ts", import.meta.url);\n',
    );
    await Deno.writeTextFile(`${root}/src/cli/main.ts`, "export {};\n");
    const result = run(root);
    const err = new TextDecoder().decode(result.stderr);
    assertEquals(result.code, 1, err);
    assertStringIncludes(
      err,
      "src/contracts/a.ts → src/cli/main.ts (contracts may not import cli)",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findCycles names each group of modules that import one another, type-only included", () => {
  const files = new Map([
    ["store/a.ts", 'import type { B } from "./b.ts";\nexport type A = 1;\n'],
    ["store/b.ts", 'import type { A } from "./a.ts";\nexport type B = 2;\n'],
    ["tools/c.ts", 'import "./d.ts";\n'],
    ["tools/d.ts", 'import "./e.ts";\n'],
    ["tools/e.ts", 'await import("./c.ts");\n'],
    ["tools/f.ts", 'import "./c.ts";\n'],
  ]);
  assertEquals(findCycles(files), [
    "store/a.ts ↔ store/b.ts",
    "tools/c.ts ↔ tools/d.ts ↔ tools/e.ts",
  ]);
});

Deno.test("the check fails on a planted two-file cycle", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/src/store`, { recursive: true });
    await Deno.writeTextFile(`${root}/src/store/a.ts`, 'import "./b.ts";\n');
    await Deno.writeTextFile(`${root}/src/store/b.ts`, 'import "./a.ts";\n');
    const result = run(root);
    const err = new TextDecoder().decode(result.stderr);
    assertEquals(result.code, 1, err);
    assertStringIncludes(err, "import cycle: store/a.ts ↔ store/b.ts");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a module of the lazy list counts as imported by each file that names it, in either form", () => {
  const files = new Map([
    ["boot/lazy_modules.ts", 'export const LAZY = ["src/cli/x.ts", "src/cli/y.ts"] as const;\n'],
    ["contracts/a.ts", 'await importLazy("src/cli/x.ts");\n'],
    ["cli/x.ts", 'import { y } from "./z.ts";\n'],
    ["cli/y.ts", ""],
    ["cli/z.ts", 'export const y = () => load("./x.ts");\n'],
  ]);
  assertEquals(findViolations(files).map((v) => `${v.from} → ${v.to}`), [
    "contracts/a.ts → cli/x.ts",
  ]);
  // The list names both without importing either; z.ts's relative name closes a cycle.
  assertEquals(findCycles(files), ["cli/x.ts ↔ cli/z.ts"]);
});

Deno.test("a module named from the root in a string is an edge, and a Worker URL with a trailing comma too", () => {
  const files = new Map([
    ["contracts/a.ts", 'export const w = fromRoot("src/cli/x.ts");\n'],
    ["sandbox/b.ts", 'new Worker(new URL(\n  "../cli/x.ts",\n  import.meta.url,\n));\n'],
    ["cli/x.ts", ""],
    // A path that names no module (help text) is not an edge.
    ["store/c.ts", 'const example = "src/app.ts";\n'],
  ]);
  assertEquals(findViolations(files).map((v) => `${v.from} → ${v.to}`), [
    "contracts/a.ts → cli/x.ts",
    "sandbox/b.ts → cli/x.ts",
  ]);
});
