/**
 * The long-session bar of issue 11 through `skiff run` against the mock: a
 * scripted session of many turns (each reading a ~20 KB log, every tenth
 * writing a file) in a 32k-token window finishes with exit 0, no request the
 * mock receives exceeds the window, each handoff holds the user's task
 * verbatim and every file changed before it, and the summary requests are
 * stored as usage rows. 100 turns here (about a minute on a loaded machine);
 * `deno task bench` runs the same session at 300 turns.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import { LONG_CONFIG, LONG_TASK, LONG_WINDOW, LongSession } from "../support/long_session.ts";
import { openStore } from "../../src/store/store.ts";

const TURNS = 100;

Deno.test(`a ${TURNS}-turn session with ~20 KB outputs in a 32k window: exit 0, no request over the window, handoffs hold the task and the changed files, summaries stored as usage`, async () => {
  const session = new LongSession({ turns: TURNS });
  await withMockSandbox([], async (sandbox, mock) => {
    await LongSession.prepare(sandbox.workspace);
    await Deno.writeTextFile(`${sandbox.configDir}/config.json`, JSON.stringify(LONG_CONFIG));
    const result = await runSkiff(["run", "--json", "-y", LONG_TASK], sandbox);
    assertEquals(result.code, 0, result.stderr.slice(-2000));
    assertEquals(session.problems, []);
    assert(session.summaries >= 2, `summarised more than once (${session.summaries})`);
    assert(session.handoffsChecked > 0, "requests carried a handoff to check");
    const largest = Math.max(...session.sizes);
    assert(largest <= LONG_WINDOW, `largest request ${largest} tokens`);
    assertEquals(session.arrivals.length, TURNS);
    for (const file of session.written) {
      assert((await Deno.stat(`${sandbox.workspace}/${file}`)).isFile, `${file} written`);
    }

    // Every request the mock answered, summaries included, is a stored usage row.
    const events = parseJsonLines(result.stdout);
    const completed = events.find((event) => event.type === "session.completed")!;
    const reported = completed.usage as { input_tokens: number };
    const sent = mock.requests.reduce(
      // The mock counts the prompt as a server does: messages and tool schemas.
      (sum, body) =>
        sum +
        Math.ceil(
          JSON.stringify(
            body.tools ? { messages: body.messages, tools: body.tools } : body.messages,
          )
            .length / 4,
        ),
      0,
    );
    const store = openStore(sandbox.dataDir);
    try {
      const totals = store.usage.ownTotals(String(events[0].session_id));
      assertEquals(totals.requests, mock.requests.length);
      assertEquals(totals.input_tokens, sent);
      assertEquals(reported.input_tokens, sent);
    } finally {
      store.close();
    }
  }, { respond: session.respond });
});
