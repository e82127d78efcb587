/**
 * `--max-time` reaches the session's start: an MCP server that never answers
 * its handshake (connect timeout ten minutes) no longer keeps `skiff run`
 * until the backstop. The deadline cuts the open, and the run ends with the
 * limit's exit code (5) and message, nothing sent to the model.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import { ExitCode } from "../../src/cli/exit_codes.ts";
import { beforeDeadline } from "../../src/cli/run/deadline.ts";

Deno.test("beforeDeadline: the work's value before the deadline, time-up after it", async () => {
  assertEquals(await beforeDeadline(Promise.resolve(7), Date.now() + 5_000), {
    kind: "done",
    value: 7,
  });
  assertEquals(await beforeDeadline(Promise.resolve(7), undefined), { kind: "done", value: 7 });
  const never = new Promise<number>(() => {});
  assertEquals(await beforeDeadline(never, Date.now() + 30), { kind: "time-up" });
  const failing = Promise.reject(new Error("open failed"));
  const error = await beforeDeadline(failing, Date.now() + 5_000).catch((e) => e as Error);
  assertEquals((error as Error).message, "open failed");
  // A failure after the deadline is not left unhandled.
  let fail!: (error: Error) => void;
  const late = new Promise<number>((_, reject) => (fail = reject));
  assertEquals(await beforeDeadline(late, Date.now() + 10), { kind: "time-up" });
  fail(new Error("too late"));
  await new Promise((resolve) => setTimeout(resolve, 10));
});

for (const ci of [undefined, "true"]) {
  Deno.test(
    `max-time cuts a session start stuck on an MCP handshake: exit 5, not the backstop (CI ${
      ci ?? "unset"
    })`,
    async () => {
      await withMockSandbox([{ text: "never asked" }], async (sandbox, mock) => {
        // A stdio MCP server that reads everything and never says a word.
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
        // The backstop's full grace (15 s) is kept: ending before it proves the deadline did it.
        const result = await runSkiff(["run", "--max-time", "2", "say hello"], sandbox, {
          env: ci ? { CI: ci } : {},
        });
        const took = Date.now() - started;
        assertEquals(result.code, ExitCode.limit, result.stderr);
        assertStringIncludes(result.stderr, "time limit reached (--max-time 2)");
        assertStringIncludes(result.stderr, "while the session was still starting");
        assert(
          !result.stderr.includes("did not stop within"),
          `the backstop ended it: ${result.stderr}`,
        );
        assert(took >= 2_000, `ended before the limit: ${took} ms`);
        assert(took < 2_000 + 15_000, `not ended by the deadline: ${took} ms`);
        assertEquals(mock.requests.length, 0, "nothing was sent to the model");
      });
    },
  );
}
