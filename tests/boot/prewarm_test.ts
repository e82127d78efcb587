/**
 * The engine's Worker started at the beginning of the process with the
 * permissions derived the last time (src/boot/prewarm.ts): used only when the
 * permissions derived now are the same, ended otherwise, whatever the file
 * of remembered permissions holds. SKIFF_TIMINGS=1 shows which happened
 * (`prewarm-used`, `prewarm-discarded`).
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox } from "../support/cli.ts";
import { OPENAI, poisonedImportMap, runPoisoned } from "../support/poisoned_imports.ts";
import { withMockSandbox } from "../support/cli.ts";
import { engineCommandOf, keySuffix, PERMISSIONS_FILE } from "../../src/boot/prewarm.ts";
import { engineWorkerModule } from "../../src/boot/bundle.ts";

const TIMINGS = { SKIFF_TIMINGS: "1" };
/** The end of a key for the engine skiff runs here: bundled after `deno task build`. */
const SUFFIX = keySuffix(engineWorkerModule());

function remembered(sandbox: Sandbox): { key: string; permissions: Record<string, unknown> }[] {
  return JSON.parse(Deno.readTextFileSync(path.join(sandbox.dataDir, PERMISSIONS_FILE))).entries;
}

async function readOne(sandbox: Sandbox, extra: string[] = []) {
  const result = await runSkiff(
    ["tool", "read", '{"file_path":"one.txt"}', ...extra],
    sandbox,
    { env: TIMINGS },
  );
  assertEquals(result.code, 0, result.stderr);
  const [line] = parseJsonLines(result.stdout);
  assertEquals(line.ok, true, result.stdout);
  assertStringIncludes(String(line.output), "hello");
  return result.stderr;
}

Deno.test("engineCommandOf: run, tool and the chat start one engine; help and other commands none", () => {
  assertEquals(engineCommandOf(["run", "fix it"]), "run");
  assertEquals(engineCommandOf(["tool", "read", "{}"]), "tool");
  assertEquals(engineCommandOf([]), "chat");
  assertEquals(engineCommandOf(["chat"]), "chat");
  assertEquals(engineCommandOf(["-c"]), "chat");
  assertEquals(engineCommandOf(["-m", "gpt", "hello"]), "chat");
  assertEquals(engineCommandOf(["run", "--help"]), undefined);
  assertEquals(engineCommandOf(["tool", "-h"]), undefined);
  assertEquals(engineCommandOf(["help", "run"]), undefined);
  assertEquals(engineCommandOf(["-V"]), undefined);
  assertEquals(engineCommandOf(["sessions", "list"]), undefined);
  assertEquals(engineCommandOf(["batch", "tasks.jsonl"]), undefined);
});

Deno.test("a second skiff tool in the same folder uses the Worker started at process start", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const first = await readOne(sandbox);
    assert(!first.includes("prewarm-"), `nothing was remembered yet: ${first}`);
    const [entry] = remembered(sandbox);
    assertEquals(entry.key, `tool\n${sandbox.workspace}${SUFFIX}`);
    assert(Array.isArray(entry.permissions.read), JSON.stringify(entry));
    const second = await readOne(sandbox);
    assertStringIncludes(second, "prewarm-used=");
    // Nothing changed, so nothing is written again.
    assertEquals(remembered(sandbox), [entry]);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("remembered permissions broader than the derived ones are never used", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    await readOne(sandbox);
    const [derived] = remembered(sandbox);
    // What an edited file could hold: every path readable and writable, any host.
    const broader = { ...derived.permissions, read: true, write: true, net: true, run: true };
    await Deno.writeTextFile(
      path.join(sandbox.dataDir, PERMISSIONS_FILE),
      JSON.stringify({ entries: [{ key: derived.key, permissions: broader }] }),
    );
    const stderr = await readOne(sandbox);
    assertStringIncludes(stderr, "prewarm-discarded=");
    assert(!stderr.includes("prewarm-used"), stderr);
    // The derived permissions are remembered again, not the edited ones.
    assertEquals(remembered(sandbox)[0], derived);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a flag that changes the permissions ends the pre-started Worker; the next start uses the new ones", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    await readOne(sandbox);
    const readOnly = await readOne(sandbox, ["--sandbox", "read-only"]);
    assertStringIncludes(readOnly, "prewarm-discarded=");
    const [entry] = remembered(sandbox);
    assertEquals((entry.permissions.write as string[]).includes(sandbox.workspace), false);
    assertStringIncludes(await readOne(sandbox, ["--sandbox", "read-only"]), "prewarm-used=");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a file of remembered permissions that is not skiff's is ignored and replaced", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    for (
      const text of [
        "not json",
        JSON.stringify({
          entries: [{ key: `tool\n${sandbox.workspace}${SUFFIX}`, permissions: "inherit" }],
        }),
        JSON.stringify({
          entries: [{
            key: `tool\n${sandbox.workspace}${SUFFIX}`,
            permissions: { read: "inherit" },
          }],
        }),
      ]
    ) {
      await Deno.writeTextFile(path.join(sandbox.dataDir, PERMISSIONS_FILE), text);
      const stderr = await readOne(sandbox);
      assert(!stderr.includes("prewarm-"), `${text}: ${stderr}`);
      assert(Array.isArray(remembered(sandbox)[0].permissions.read));
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a run with a model uses the pre-started Worker and answers the same", async () => {
  await withMockSandbox(
    [{ text: "first answer" }, { text: "second answer" }],
    async (sandbox) => {
      const first = await runSkiff(["run", "hello"], sandbox, { env: TIMINGS });
      assertEquals(first.code, 0, first.stderr);
      assertStringIncludes(first.stdout, "first answer");
      assert(!first.stderr.includes("prewarm-"), first.stderr);
      const second = await runSkiff(["run", "hello again"], sandbox, { env: TIMINGS });
      assertEquals(second.code, 0, second.stderr);
      assertStringIncludes(second.stdout, "second answer");
      assertStringIncludes(second.stderr, "prewarm-used=");
    },
  );
});

Deno.test("a pre-started Worker for skiff tool evaluates no openai SDK", async () => {
  const sandbox = await makeSandbox({ SKIFF_TIMINGS: "1" });
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const map = await poisonedImportMap(sandbox.root, OPENAI);
    const args = ["tool", "read", '{"file_path":"one.txt"}'];
    const first = await runPoisoned(sandbox, map, args);
    assertEquals(first.code, 0, first.stderr);
    const second = await runPoisoned(sandbox, map, args);
    assertEquals(second.code, 0, second.stderr);
    assertStringIncludes(second.stderr, "prewarm-used=");
    // That the poison bites a start that evaluates the SDK: the control in startup_modules_test.ts.
    assertEquals(parseJsonLines(second.stdout)[0].ok, true, second.stdout);
  } finally {
    await sandbox.cleanup();
  }
});
