/**
 * `skiff compact <session> [--focus]` through the CLI against the mock: the
 * model is asked for the handoff with the focus in its prompt, the command
 * prints what it did, and the next run of the session starts from the
 * handoff while `sessions show` still holds every message.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";
import { HANDOFF_MARK, SUMMARY_PROMPT } from "../../../src/engine/context/summary.ts";

const TASK = "Rename the helpers in the notes module and keep the old names as aliases.";
const HANDOFF = "## Task\n> " + TASK + "\n## Next steps\n- rename parse_note next";

const step = (n: number): MockTurn => ({
  text: `Step ${n}: looked through the notes module for helpers to rename. `.repeat(20),
  toolCalls: [{ name: "glob", arguments: { pattern: `notes_${n}/*.md` }, id: `call_${n}` }],
});

type Message = { role: string; content: string | null };

Deno.test("skiff compact --focus: the summary prompt carries the focus, the next run starts from the handoff, show keeps everything", async () => {
  const script: MockTurn[] = [
    step(1),
    step(2),
    step(3),
    step(4),
    { text: "Renamed the first helpers." },
    { text: HANDOFF },
    { text: "Continuing from the handoff." },
  ];
  await withMockSandbox(script, async (sandbox, mock) => {
    const run = await runSkiff(["run", "--json", TASK], sandbox);
    assertEquals(run.code, 0, run.stderr);
    const sessionId = String(parseJsonLines(run.stdout)[0].session_id);

    const compact = await runSkiff(
      ["compact", sessionId.slice(0, 12), "--focus", "the parse_note rename"],
      sandbox,
    );
    assertEquals(compact.code, 0, compact.stderr);
    assertStringIncludes(compact.stdout, `Compacted ${sessionId}: summarised`);
    assert(/~\d+ → ~\d+ tokens/.test(compact.stdout), compact.stdout);
    const asked = mock.requests.at(-1)!.messages as Message[];
    assertEquals(asked[0].content, SUMMARY_PROMPT);
    assertStringIncludes(asked[1].content!, "Keep in focus: the parse_note rename");
    assertStringIncludes(asked[1].content!, "Step 1:");

    const before = mock.requests.length;
    const next = await runSkiff(["run", "--json", "--session", sessionId, "Go on."], sandbox);
    assertEquals(next.code, 0, next.stderr);
    const sent = mock.requests[before].messages as Message[];
    assert(sent[1].content!.startsWith(HANDOFF_MARK), sent[1].content!.slice(0, 80));
    assertStringIncludes(sent[1].content!, "rename parse_note next");
    assert(!sent.some((message) => message.content?.startsWith("Step 1:")), "step 1 replaced");
    assertEquals(sent.at(-1)!.content, "Go on.");

    const shown = await runSkiff(["sessions", "show", sessionId], sandbox);
    assertStringIncludes(shown.stdout, "Step 1:");
    assertStringIncludes(shown.stdout, "## Compaction: summary (manual");
  });
});

Deno.test("skiff compact: an unknown session is a usage error; --help teaches", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const missing = await runSkiff(["compact", "ses_nope"], sandbox);
    assertEquals(missing.code, 2, missing.stderr);
    assertStringIncludes(missing.stderr, "skiff sessions list");
    assertEquals(mock.requests.length, 0);
    const help = await runSkiff(["compact", "--help"], sandbox);
    assertEquals(help.code, 0);
    assertStringIncludes(help.stdout, "--focus <text>");
    assertStringIncludes(help.stdout, "sessions show");
  });
});

Deno.test("skiff compact of a small session asks no model, says so once, exits 0; a failed summary with nothing to prune exits 1", async () => {
  const script: MockTurn[] = [
    { text: "Hello." },
    { text: "Hi again." },
    { text: "And again." },
    ...[1, 2, 3, 4].map(step),
    { text: "Done looking." },
    { status: 500, body: { error: { message: "summary model is down" } } },
  ];
  await withMockSandbox(script, async (sandbox, mock) => {
    const ids: string[] = [];
    for (const prompt of ["hi", "hi", "hi"]) {
      const args = ids.length
        ? ["run", "--json", "--session", ids[0], prompt]
        : ["run", "--json", prompt];
      const run = await runSkiff(args, sandbox);
      assertEquals(run.code, 0, run.stderr);
      ids.push(String(parseJsonLines(run.stdout)[0].session_id));
    }
    const asked = mock.requests.length;
    const small = await runSkiff(["compact", ids[0]], sandbox);
    assertEquals(small.code, 0, small.stderr);
    assertEquals(mock.requests.length, asked, "a model request was paid for a small session");
    assertStringIncludes(
      small.stdout,
      `Nothing to compact in ${ids[0]}: the older turns hold only ~`,
    );
    // One message, not a second one contradicting it.
    assertEquals(small.stderr.trim(), "", small.stderr);
    assertEquals(small.stdout.trim().split("\n").length, 1, small.stdout);

    const big = await runSkiff(["run", "--json", TASK], sandbox);
    assertEquals(big.code, 0, big.stderr);
    const bigId = String(parseJsonLines(big.stdout)[0].session_id);
    // The summary's request fails at once (no retries), so the command says what happened.
    await Deno.writeTextFile(`${sandbox.configDir}/config.json`, '{"provider":{"maxRetries":0}}');
    const failed = await runSkiff(["compact", bigId], sandbox);
    assertEquals(failed.code, 1, failed.stdout + failed.stderr);
    assertStringIncludes(
      failed.stderr,
      `skiff: could not compact ${bigId}: the summary request failed`,
    );
    assertStringIncludes(failed.stderr, "summary model is down");
    assert(failed.stderr.trim().endsWith("try again. Nothing was changed."), failed.stderr);
    assertEquals(failed.stdout, "");
  });
});
