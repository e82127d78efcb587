/**
 * A `--max-time` that cuts the session's start (an MCP server that never
 * answers its handshake) ends the session as a limit-ended run does: status
 * "limit", and an `error` then a `session.completed` event, stored and shown
 * in `--json` mode. Before, the session the engine had created was left with
 * no final status (`skiff sessions list` said "stopped") and the JSON stream
 * said nothing of why the run ended.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";
import { ExitCode } from "../../src/cli/exit_codes.ts";
import { endCutStart } from "../../src/engine/start_cut.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import type { RunOwner } from "../../src/store/run_owner.ts";
import { openStore } from "../../src/store/store.ts";

/** A stdio MCP server that reads everything and never says a word. */
async function stuckMcp(sandbox: Sandbox): Promise<void> {
  await Deno.writeTextFile(
    path.join(sandbox.configDir, "config.json"),
    JSON.stringify({
      mcp: {
        stuck: { command: "sh", args: ["-c", "cat > /dev/null"], connect_timeout_ms: 600_000 },
      },
    }),
  );
}

for (const ci of [undefined, "true"]) {
  Deno.test(
    `a start cut by --max-time ends its session as a limit, in --json too; sessions list and run -c handle it (CI ${
      ci ?? "unset"
    })`,
    async () => {
      await withMockSandbox([{ text: "picked up" }], async (sandbox, mock) => {
        const env: Record<string, string> = ci ? { CI: ci } : {};
        await stuckMcp(sandbox);
        const cut = await runSkiff(["run", "--json", "--max-time", "2", "say hello"], sandbox, {
          env,
        });
        assertEquals(cut.code, ExitCode.limit, cut.stderr);
        assertEquals(mock.requests.length, 0, "nothing was sent to the model");
        const events = parseJsonLines(cut.stdout);
        const types = events.map((event) => event.type);
        assertEquals(types.slice(-2), ["error", "session.completed"], cut.stdout);
        const [error, completed] = events.slice(-2);
        assertEquals(error.code, "limit");
        assertEquals(error.exit_code, ExitCode.limit);
        assertStringIncludes(String(error.message), "time limit reached (--max-time 2)");
        assertStringIncludes(String(error.message), "while the session was still starting");
        assertEquals(completed.exit_code, ExitCode.limit);
        assertEquals(completed.turns, 0);
        assertEquals(completed.denials, []);
        assertEquals(completed.attribution, { layer: "operator", reason: "max_time" });
        const sessionId = String(completed.session_id);
        assert(sessionId.startsWith("ses_"), sessionId);
        assertEquals(error.session_id, sessionId);

        // sessions list: the session, ended by the limit, titled by its prompt.
        const listed = await runSkiff(["sessions", "list", "--json"], sandbox, { env });
        assertEquals(listed.code, 0, listed.stderr);
        const sessions = parseJsonLines(listed.stdout);
        assertEquals(sessions.length, 1, listed.stdout);
        assertEquals(sessions[0].id, sessionId);
        assertEquals(sessions[0].status, "limit");
        assertEquals(sessions[0].title, "say hello");
        const table = await runSkiff(["sessions", "list"], sandbox, { env });
        assertStringIncludes(table.stdout, "limit");

        // The stored events say the same.
        const exported = await runSkiff(
          ["sessions", "export", sessionId, "--format", "json"],
          sandbox,
          { env },
        );
        assertEquals(exported.code, 0, exported.stderr);
        assertStringIncludes(exported.stdout, "max_time");

        // run -c picks the cut session up, once the MCP server is gone.
        await Deno.remove(path.join(sandbox.configDir, "config.json"));
        const resumed = await runSkiff(["run", "--json", "-c", "try again"], sandbox, { env });
        assertEquals(resumed.code, ExitCode.ok, resumed.stderr);
        const again = parseJsonLines(resumed.stdout);
        assertEquals(again.at(-1)?.type, "session.completed");
        assertEquals(again.at(-1)?.session_id, sessionId);
        assertEquals(again.at(-1)?.text, "picked up");
        assertEquals(mock.requests.length, 1);
        const after = parseJsonLines(
          (await runSkiff(["sessions", "list", "--json"], sandbox, { env })).stdout,
        );
        assertEquals(after.map((session) => [session.id, session.status]), [
          [sessionId, "completed"],
        ]);
      });
    },
  );
}

Deno.test("a start cut by --max-time says why once on stderr in text mode", async () => {
  await withMockSandbox([{ text: "never asked" }], async (sandbox, mock) => {
    await stuckMcp(sandbox);
    const result = await runSkiff(["run", "--max-time", "2", "say hello"], sandbox);
    assertEquals(result.code, ExitCode.limit, result.stderr);
    assertEquals(result.stderr.split("time limit reached").length - 1, 1, result.stderr);
    assertStringIncludes(result.stderr, "skiff: time limit reached (--max-time 2)");
    assertStringIncludes(result.stderr, "Continue with: skiff run --session ses_");
    assertEquals(mock.requests.length, 0);
  });
});

const OWNER: RunOwner = { run_id: "run_cut", host: "h", pid: 1, pid_started: null };
const SPEC = { workspace: "/w", model: "m", agent: "build", run: OWNER } as
  & EngineSpec
  & { run: RunOwner };
const CUT = { message: "time limit reached (--max-time 1) while starting.", exitCode: 5 };

Deno.test("endCutStart ends the session the run holds: status limit, title, stored events", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-start-cut-" });
  const store = openStore(dataDir);
  try {
    const made = store.createSession({
      workspace: "/w",
      model: "m",
      agent: "build",
      holder: OWNER,
    });
    const events = endCutStart(store, SPEC, { ...CUT, prompt: "fix it\nplease" });
    assertEquals(events.map((event) => [event.type, event.session_id]), [
      ["error", made.id],
      ["session.completed", made.id],
    ]);
    const session = store.getSession(made.id)!;
    assertEquals(session.status, "limit");
    assertEquals(session.title, "fix it");
    assertEquals(store.listEvents(made.id).map((event) => event.type), [
      "error",
      "session.completed",
    ]);
    assertEquals(store.listSessions({ workspace: "/w" }).length, 1, "no second session");
  } finally {
    store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("endCutStart makes the session when the engine had made none yet", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-start-cut-" });
  const store = openStore(dataDir);
  try {
    const events = endCutStart(store, SPEC, { ...CUT, prompt: "fix it" });
    const sessions = store.listSessions({ workspace: "/w" });
    assertEquals(sessions.map((session) => [session.id, session.status, session.title]), [
      [events[0].session_id, "limit", "fix it"],
    ]);
  } finally {
    store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
