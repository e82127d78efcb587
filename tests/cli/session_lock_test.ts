/**
 * One run writes a session at a time, end to end: two real `skiff run
 * --continue` processes against the scripted model, and a run killed with
 * SIGKILL whose session is then listed as not running and continued at once.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockServer } from "../support/mock_server.ts";

async function requestsReach(mock: MockServer, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (mock.requests.length < count) {
    if (Date.now() > deadline) throw new Error(`the model got ${mock.requests.length} requests`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function userPrompts(request: Record<string, unknown>): string[] {
  const messages = request.messages as { role: string; content: unknown }[];
  return messages.filter((message) => message.role === "user").map((message) =>
    String(message.content)
  );
}

Deno.test("a second run continuing a session that another run writes waits, then refuses with exit 2", async () => {
  await withMockSandbox(
    [{ text: "one" }, { text: "two", delayMs: 8000 }, { text: "three" }, { text: "four" }],
    async (sandbox, mock) => {
      const first = await runSkiff(["run", "prompt one"], sandbox);
      assertEquals(first.code, 0, first.stderr);

      const writer = spawnSkiff(["run", "--continue", "prompt two"], sandbox);
      await requestsReach(mock, 2);
      const second = await runSkiff(["run", "--continue", "prompt three"], sandbox);
      const writerEnd = await writer.output();
      assertEquals(writerEnd.code, 0, new TextDecoder().decode(writerEnd.stderr));

      assertEquals(second.code, 2, second.stderr);
      assertStringIncludes(second.stderr, "is being written by another skiff run (run_");
      assertStringIncludes(second.stderr, `process ${writer.pid}`);
      assertEquals(mock.requests.length, 2, "the refused run never reached the model");

      // The history holds each prompt once, in order, with nothing taken for interrupted.
      const next = await runSkiff(["run", "--continue", "prompt four"], sandbox);
      assertEquals(next.code, 0, next.stderr);
      const last = mock.requests[mock.requests.length - 1];
      assertEquals(userPrompts(last), ["prompt one", "prompt two", "prompt four"]);
      assert(!JSON.stringify(last).includes("interrupted"), JSON.stringify(last));
    },
  );
});

Deno.test("a run killed with SIGKILL leaves its session not running, and continuing it does not wait", async () => {
  await withMockSandbox([{ hang: true }, { text: "picked up" }], async (sandbox, mock) => {
    const doomed = spawnSkiff(["run", "start the work"], sandbox);
    await requestsReach(mock, 1);
    const during = parseJsonLines(
      (await runSkiff(["sessions", "list", "--json"], sandbox)).stdout,
    );
    assertEquals(during.map((session) => session.status), ["running"]);

    doomed.kill("SIGKILL");
    await doomed.output();
    const after = parseJsonLines((await runSkiff(["sessions", "list", "--json"], sandbox)).stdout);
    assertEquals(after.map((session) => session.status), ["stopped"]);
    const listed = await runSkiff(["sessions", "list"], sandbox);
    assertStringIncludes(listed.stdout, "stopped");

    const started = Date.now();
    const resumed = await runSkiff(["run", "--continue", "go on"], sandbox);
    assertEquals(resumed.code, 0, resumed.stderr);
    assert(!resumed.stderr.includes("being written"), resumed.stderr);
    assertStringIncludes(resumed.stdout, "picked up");
    const final = parseJsonLines((await runSkiff(["sessions", "list", "--json"], sandbox)).stdout);
    assertEquals(final.map((session) => [session.id, session.status]), [[
      after[0].id,
      "completed",
    ]]);
    console.log(`continuing the killed run's session took ${Date.now() - started} ms`);
  });
});
