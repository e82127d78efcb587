/**
 * `skiff sessions stats`: failed runs counted per layer and reason over the
 * store, runs stored before attribution existed classified as inferred
 * without the store being changed, and --since leaving older runs out.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";
import { openStore } from "../../../src/store/store.ts";
import { makeEvent } from "../../../src/contracts/events.ts";
import { summariseFailures } from "../../../src/cli/sessions/stats.ts";

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };

/** A session as skiff stored it before runs carried an attribution: a denial, 40 days ago. */
function storeOldDeniedRun(dataDir: string, workspace: string): string {
  const store = openStore(dataDir);
  try {
    const session = store.createSession({ workspace, model: "m", agent: "build" });
    const at = () => new Date(Date.now() - 40 * 86_400_000);
    store.appendEvent(makeEvent("session.started", session.id, {
      workspace,
      model: "m",
      agent: "build",
      resumed: false,
    }, at));
    store.appendEvent(makeEvent("session.completed", session.id, {
      text: "",
      usage,
      turns: 1,
      exit_code: 3,
      denials: [{ tool: "bash", key: "bash", patterns: ["rm x"], reason: "needs approval" }],
    }, at));
    return session.id;
  } finally {
    store.close();
  }
}

Deno.test("sessions stats: shares per layer and reason, old runs inferred and left unchanged", async () => {
  const script: MockTurn[] = [
    { text: "done" },
    ...Array.from({ length: 2 }, () => ({ toolCalls: [{ name: "todoread", arguments: {} }] })),
  ];
  await withMockSandbox(script, async (sandbox) => {
    assertEquals((await runSkiff(["run", "hi"], sandbox)).code, 0);
    assertEquals((await runSkiff(["run", "--max-turns", "1", "spin"], sandbox)).code, 5);
    const oldId = storeOldDeniedRun(sandbox.dataDir, sandbox.workspace);

    const json = await runSkiff(["sessions", "stats", "--json"], sandbox);
    assertEquals(json.code, 0, json.stderr);
    const stats = JSON.parse(json.stdout);
    assertEquals(stats.runs, 3);
    assertEquals(stats.failures, 2);
    assertEquals(stats.inferred, 1);
    assertEquals(stats.unknown_share, 0);
    const layer = (name: string) =>
      stats.layers.find((entry: { layer: string }) => entry.layer === name);
    assertEquals(layer("agent"), { layer: "agent", count: 1, share: 0.5 });
    assertEquals(layer("workflow"), { layer: "workflow", count: 1, share: 0.5 });
    assertEquals(stats.reasons.map((entry: { reason: string }) => entry.reason).sort(), [
      "max_turns",
      "permission_denied",
    ]);

    // Read only: the old session's events are as they were.
    const store = openStore(sandbox.dataDir);
    try {
      const end = store.listEvents(oldId).at(-1)!;
      assertEquals("attribution" in end, false);
    } finally {
      store.close();
    }

    const recent = JSON.parse(
      (await runSkiff(["sessions", "stats", "--since", "7d", "--json"], sandbox)).stdout,
    );
    assertEquals([recent.runs, recent.failures, recent.inferred], [2, 1, 0]);

    const text = await runSkiff(["sessions", "stats"], sandbox);
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(text.stdout, "2 of 3 runs did not succeed.");
    assertStringIncludes(text.stdout, "agent/max_turns");
    assertStringIncludes(text.stdout, "inferred: 1");
  });
});

Deno.test("sessions stats: a bad --since says what it takes (exit 2)", async () => {
  await withMockSandbox([], async (sandbox) => {
    const result = await runSkiff(["sessions", "stats", "--since", "last week"], sandbox);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "7d");
  });
});

Deno.test("sessions stats: with no failures every share is 0, not a division by zero", () => {
  const stats = summariseFailures(4, [], null);
  assertEquals(stats.failures, 0);
  assertEquals(stats.unknown_share, 0);
  assert(stats.layers.every((entry) => entry.share === 0));
  assertEquals(stats.layers.length, 7);
});
