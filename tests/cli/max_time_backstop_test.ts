/**
 * The `--max-time` backstop of skiff run (src/cli/run.ts): when the run does
 * not stop by itself within the grace after the limit, the process ends with
 * the limit's exit code (5). Proven with a step the deadline does not cut:
 * an MCP server that never answers its handshake, with a connect timeout of
 * ten minutes. The tests shorten the grace (SKIFF_TEST_MAX_TIME_GRACE_MS).
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import { maxTimeGraceMs } from "../../src/cli/run.ts";
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
      await withMockSandbox([{ text: "never asked" }], async (sandbox, mock) => {
        // A stdio MCP server that reads everything and never says a word: the session's start
        // waits on its handshake for ten minutes, and --max-time's deadline does not cut it.
        // It ends when skiff's end closes its stdin.
        await Deno.writeTextFile(
          path.join(sandbox.configDir, "config.json"),
          JSON.stringify({
            mcp: {
              stuck: {
                command: "sh",
                args: ["-c", "cat > /dev/null"],
                connect_timeout_ms: 600_000,
              },
            },
          }),
        );
        const started = Date.now();
        const result = await runSkiff(["run", "--max-time", "2", "say hello"], sandbox, {
          env: { SKIFF_TEST_MAX_TIME_GRACE_MS: "500", ...(ci ? { CI: ci } : {}) },
        });
        const took = Date.now() - started;
        assertEquals(result.code, ExitCode.limit, result.stderr);
        assertStringIncludes(
          result.stderr,
          "skiff: --max-time 2 passed and the run did not stop within 0.5 s more; " +
            "ending the process (exit 5).",
        );
        assert(took >= 2_400, `ended before the limit and its grace: ${took} ms`);
        assert(took < 20_000, `the backstop did not end it in time: ${took} ms`);
        assertEquals(mock.requests.length, 0, "the run never reached the model");
      });
    },
  );
}
