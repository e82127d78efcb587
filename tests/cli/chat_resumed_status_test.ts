/**
 * A resumed chat's status line shows the session as its last run left it —
 * context use and tokens from the store — at once, not "ctx 0% · 0 tok"
 * until the next request: unit level over a store, and `skiff -c` in tmux,
 * where `/new` then puts the counts back to 0 for the new session.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  hasTmux,
  inTerminal,
  press,
  shows,
  typeLine,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import { resumedStatus } from "../../src/cli/chat/sessions.ts";
import { makeEvent } from "../../src/contracts/events.ts";
import { openStore } from "../../src/store/store.ts";
import { formatTokens } from "../../src/ui/chat/status_line.ts";

warnWithoutTmux("the resumed chat's status line in a real terminal");

Deno.test("resumed status: the session's own tokens and cost, and the context of its last request or compaction", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-resumed-status-" });
  try {
    const store = openStore(dataDir);
    let id: string;
    try {
      const session = store.createSession({ workspace: "/w", model: "m", agent: "build" });
      id = session.id;
      const child = store.createSession({
        workspace: "/w",
        model: "m",
        agent: "explore",
        parentId: id,
      });
      const first = { input_tokens: 1000, output_tokens: 100, total_tokens: 1100, cost_usd: 0.5 };
      const second = { input_tokens: 3000, output_tokens: 200, total_tokens: 3200, cost_usd: 0.25 };
      store.usage.record(id, "m", first, 1);
      store.appendEvent(makeEvent("turn.completed", id, { turn: 1, usage: first }));
      store.usage.record(child.id, "m", { input_tokens: 9, output_tokens: 9, total_tokens: 18 });
      store.usage.record(id, "m", second, 1);
      store.appendEvent(makeEvent("turn.completed", id, { turn: 2, usage: second }));
      assertEquals(resumedStatus({ dataDir }, id), {
        contextTokens: 3000,
        totalTokens: 4300,
        costUsd: 0.75,
      });
      store.appendEvent(makeEvent("context.compacted", id, {
        turn: 2,
        kind: "summary",
        trigger: "manual",
        tokens_before: 3000,
        tokens_after: 800,
        window: 8000,
        pruned: 0,
        replaced: 4,
      }));
    } finally {
      store.close();
    }
    assertEquals(resumedStatus({ dataDir }, id).contextTokens, 800);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test({
  name:
    "chat -c: the status line shows the resumed session's tokens before any request; /new shows 0 again",
  ignore: !hasTmux,
  async fn() {
    let tokens = 0;
    await inTerminal(
      [{ text: "First answer." }],
      "-c",
      async (session, _sandbox, mock) => {
        const screen = await shows(session, "Ctrl-D to exit");
        assertStringIncludes(screen, "First answer.");
        assertStringIncludes(screen, `${formatTokens(tokens)} tok`);
        assert(!/ 0 tok/.test(screen), screen);
        assertEquals(mock.requests.length, 1);
        // /new starts a session with nothing spent: the counts go back to 0.
        await typeLine(session, "/new");
        const fresh = await shows(session, "New session: the next message starts it.");
        const statusNow = fresh.split("\n").filter((line) => / tok\b/.test(line)).at(-1) ?? "";
        assert(/ 0 tok/.test(statusNow), fresh);
        await press(session, "C-d");
        assertStringIncludes(await shows(session, "SKIFF_EXIT="), "SKIFF_EXIT=0");
      },
      {
        prefix: "skiff-resumed-status",
        async prepare(sandbox) {
          const run = await runSkiff(["run", "a first question"], sandbox);
          assertEquals(run.code, 0, run.stderr);
          const store = openStore(sandbox.dataDir);
          try {
            const stored = store.listSessions({ workspace: sandbox.workspace })[0];
            tokens = stored.input_tokens + stored.output_tokens;
          } finally {
            store.close();
          }
          assert(tokens > 0, "the first run stored no tokens");
        },
      },
    );
  },
});
