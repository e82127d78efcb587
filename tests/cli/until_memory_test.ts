/**
 * A `--until` check is remembered as a verification in the workspace's
 * harness memory, the same record harness_verify writes, so the next
 * session's harness_status and handoff see it; `--no-memory` keeps it out.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { hasBwrap } from "../escape/e2e_support.ts";
import { openStore } from "../../src/store/store.ts";

function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn("WARNING: bubblewrap is missing: until_memory_test runs with --sandbox full-access");
  return ["--sandbox", "full-access"];
}

const script: MockTurn[] = [
  { toolCalls: [{ name: "bash", arguments: { command: "printf ok > state.txt" } }] },
  { text: "Done." },
];
const CHECK = `grep -q ok state.txt`;

function verifications(dataDir: string) {
  const store = openStore(dataDir);
  try {
    return store.memory.records(undefined, { kinds: ["verification_result"] });
  } finally {
    store.close();
  }
}

Deno.test("--until: the check is recorded as a verification in harness memory", async () => {
  await withMockSandbox(script, async (sandbox) => {
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--allow", "bash(*)", "--until", CHECK, "make it ok"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const records = verifications(sandbox.dataDir);
    assertEquals(records.length, 1);
    assertEquals(records[0].command, CHECK);
    assertEquals(records[0].details, "passed");
    assertStringIncludes(records[0].summary, "exit 0");
  });
});

Deno.test("--until with --no-memory: the check is not remembered", async () => {
  await withMockSandbox(script, async (sandbox) => {
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--no-memory", "--allow", "bash(*)", "--until", CHECK, "go"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stdout + run.stderr);
    assertEquals(verifications(sandbox.dataDir).length, 0);
  });
});
