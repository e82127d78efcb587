/**
 * Deno's Node layer for `node:crypto` and `node:fs` is not started by skiff:
 * file contents are hashed with the plain-TypeScript SHA-256
 * (src/lib/sha256.ts) and the data folder is made with Deno's own
 * calls (src/store/data_dir.ts), which saves the engine's Worker their
 * ~25–45 ms each (docs/performance.md, Start-up). skiff runs with an import
 * map that points both at a stand-in that throws when evaluated (and exports
 * nothing, so a module importing a name from one fails to link): a read, a
 * write and an edit in a fresh data folder (the file ledger and the undo
 * snapshots hash each file) and `skiff undo` (which compares hashes) must not
 * notice. The controls show the poisons bite.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, type Sandbox } from "../support/cli.ts";
import { poisonedImportMap, runPoisoned } from "../support/poisoned_imports.ts";

/** `skiff tool --yes` with `importMap`, reading `calls` as JSON Lines on stdin. */
function toolCalls(sandbox: Sandbox, importMap: string, calls: unknown[]) {
  const lines = calls.map((call) => JSON.stringify(call)).join("\n");
  return runPoisoned(sandbox, importMap, ["tool", "--yes"], lines);
}

const POISONED = ["node:crypto", "node:fs"];

Deno.test("skiff tool read, write, edit and undo never load node:crypto or node:fs", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const map = await poisonedImportMap(sandbox.root, POISONED);
    // A fresh data folder: skiff makes it (ensureDataDir) on this run.
    await Deno.remove(sandbox.dataDir, { recursive: true });
    const calls = [
      { tool: "read", input: { file_path: "one.txt" } },
      { tool: "edit", input: { file_path: "one.txt", old_string: "hello", new_string: "bye" } },
      { tool: "write", input: { file_path: "two.txt", content: "new\n" } },
    ];
    const result = await toolCalls(sandbox, map, calls);
    assertEquals(result.code, 0, result.stderr);
    const lines = parseJsonLines(result.stdout);
    assertEquals(lines.map((line) => line.ok), [true, true, true], result.stdout);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "one.txt")), "bye\n");
    const undo = await runPoisoned(sandbox, map, ["undo"]);
    assertEquals(undo.code, 0, undo.stderr + undo.stdout);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "one.txt")), "hello\n");
  } finally {
    await sandbox.cleanup();
  }
});

for (const name of POISONED) {
  Deno.test(`control: a module that imports the poisoned ${name} fails`, async () => {
    const sandbox = await makeSandbox();
    try {
      const map = await poisonedImportMap(sandbox.root, POISONED);
      const script = path.join(sandbox.root, "uses_it.ts");
      await Deno.writeTextFile(script, `import "${name}";\n`);
      const result = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "--import-map", map, script],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert(!result.success, `importing the poisoned ${name} should fail`);
      assertStringIncludes(new TextDecoder().decode(result.stderr), "POISON");
    } finally {
      await sandbox.cleanup();
    }
  });
}
