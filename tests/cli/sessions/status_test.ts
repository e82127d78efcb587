/**
 * `skiff sessions list` (and `--json`) shows how each run ended, as its exit
 * code said: completed (0), failed (1, a `--until` check that never passed),
 * denied (3, a refused call), limit (5), interrupted (130), and stopped for
 * a run killed before it could say.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import {
  parseJsonLines,
  runSkiff,
  type Sandbox,
  spawnSkiff,
  withMockSandbox,
} from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";
import { requestsReach } from "../../support/batch_tasks.ts";
import { hasBwrap } from "../../escape/e2e_support.ts";

/** The `--until` check runs in the OS sandbox where there is one; the status does not depend on which. */
function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn("WARNING: bubblewrap is missing: status_test runs with --sandbox full-access");
  return ["--sandbox", "full-access"];
}

/** Each prompt names how its run is to end. */
function responder(body: Record<string, unknown>): MockTurn {
  const messages = body.messages as { role: string; content: unknown }[];
  const prompt = String(messages.find((message) => message.role === "user")?.content);
  const results = messages.filter((message) => message.role === "tool").length;
  if (prompt.includes("hang") || prompt.includes("killed")) return { hang: true };
  if (results === 0 && (prompt.includes("refused") || prompt.includes("limit"))) {
    const command = prompt.includes("refused") ? "rm -rf build" : "true";
    return { toolCalls: [{ name: "bash", arguments: { command } }] };
  }
  return { text: "done" };
}

async function stopWith(
  sandbox: Sandbox,
  prompt: string,
  signal: Deno.Signal,
  requests: () => Promise<void>,
) {
  const child = spawnSkiff(["run", prompt], sandbox);
  const output = Promise.all([child.stdout, child.stderr].map((s) => new Response(s).text()));
  await requests();
  child.kill(signal);
  const status = await child.status;
  await output;
  return status.code;
}

Deno.test("sessions list shows how each run ended, as its exit code did", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const exits: Record<string, number | null> = {};
    const run = async (prompt: string, flags: string[] = []) => {
      exits[prompt] = (await runSkiff(["run", ...flags, prompt], sandbox)).code;
    };
    await run("completed run");
    await run("failed run", [...sandboxFlags(), "--until", "false", "--max-cycles", "1"]);
    await run("refused run");
    await run("limit run", ["--allow", "bash(true)", "--max-turns", "1"]);
    const sent = () => mock.requests.length;
    let before = sent();
    exits["hang run"] = await stopWith(
      sandbox,
      "hang run",
      "SIGINT",
      () => requestsReach(mock, before + 1),
    );
    before = sent();
    exits["killed run"] = await stopWith(
      sandbox,
      "killed run",
      "SIGKILL",
      () => requestsReach(mock, before + 1),
    );
    assertEquals(exits, {
      "completed run": 0,
      "failed run": 1,
      "refused run": 3,
      "limit run": 5,
      "hang run": 130,
      "killed run": 137,
    });

    const listed = await runSkiff(["sessions", "list", "--json"], sandbox);
    assertEquals(listed.code, 0, listed.stderr);
    const statuses = Object.fromEntries(
      parseJsonLines(listed.stdout).map((session) => [session.title, session.status]),
    );
    assertEquals(statuses, {
      "completed run": "completed",
      "failed run": "failed",
      "refused run": "denied",
      "limit run": "limit",
      "hang run": "interrupted",
      "killed run": "stopped",
    });
    // The table shows the same words.
    const table = await runSkiff(["sessions", "list"], sandbox);
    for (const [title, status] of Object.entries(statuses)) {
      const line = table.stdout.split("\n").find((row) => row.endsWith(title)) ?? "";
      assertStringIncludes(line, ` ${status} `, table.stdout);
    }
  }, { respond: responder });
});
