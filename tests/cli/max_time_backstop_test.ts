/**
 * The `--max-time` backstop of skiff run (src/cli/run/run.ts): when the run does
 * not stop by itself within the grace after the limit, the process ends with
 * the limit's exit code (5). Proven with a step the deadline does not cut:
 * writing the final answer (`--output-last-message`) to a FIFO nobody reads,
 * which waits for a reader after the run has ended. (An MCP server that never
 * answers its handshake is now cut by the deadline itself:
 * tests/cli/max_time_start_test.ts.) The tests shorten the grace
 * (SKIFF_TEST_MAX_TIME_GRACE_MS).
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import { maxTimeGraceMs } from "../../src/cli/run/run.ts";
import { ExitCode } from "../../src/cli/exit_codes.ts";

Deno.test("max-time grace: 15 s; the test variable can only shorten it", () => {
  assertEquals(maxTimeGraceMs(undefined), 15_000);
  assertEquals(maxTimeGraceMs("500"), 500);
  assertEquals(maxTimeGraceMs("0"), 0);
  assertEquals(maxTimeGraceMs("999999"), 15_000);
  assertEquals(maxTimeGraceMs("-1"), 15_000);
  assertEquals(maxTimeGraceMs("soon"), 15_000);
});

for (const ci of [undefined, "true"]) {
  Deno.test(
    `max-time backstop: a run stuck where the deadline cannot reach ends with exit 5 (CI ${
      ci ?? "unset"
    })`,
    async () => {
      await withMockSandbox([{ text: "hello" }], async (sandbox, mock) => {
        // A FIFO with no reader: opening it to write the final answer waits for one, after
        // the run (and its deadline) are over. Only the backstop ends that wait.
        const fifo = path.join(sandbox.root, "answer.fifo");
        const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
        assert(made.success, "mkfifo failed");
        const started = Date.now();
        const result = await runSkiff(
          ["run", "--max-time", "2", "--output-last-message", fifo, "say hello"],
          sandbox,
          { env: { SKIFF_TEST_MAX_TIME_GRACE_MS: "500", ...(ci ? { CI: ci } : {}) } },
        );
        const took = Date.now() - started;
        assertEquals(result.code, ExitCode.limit, result.stderr);
        assertStringIncludes(
          result.stderr,
          "skiff: --max-time 2 passed and the run did not stop within 0.5 s more; " +
            "ending the process (exit 5).",
        );
        assert(took >= 2_400, `ended before the limit and its grace: ${took} ms`);
        assert(took < 20_000, `the backstop did not end it in time: ${took} ms`);
        // On a loaded machine the deadline may cut the model request first; either way the
        // run has ended and only the write to the FIFO is left.
        assert(mock.requests.length <= 1, `${mock.requests.length} model requests`);
      });
    },
  );
}
