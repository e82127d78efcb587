/**
 * The model's reasoning in the chat at a real terminal (tmux), against a
 * DeepSeek-dialect server (tests/support/dialect_server.ts): collapsed to one
 * line by default; Ctrl-T writes the last one out and shows the next as it
 * streams; /thinking writes it out, /thinking on|off switches the live
 * display; at 60 columns the reasoning is wrapped by skiff, not by the
 * terminal; a resumed session's replay keeps the collapsed line.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { makeSandbox } from "../support/cli.ts";
import {
  hasTmux,
  newSession,
  press,
  removeWhenQuiet,
  sessionName,
  shows,
  skiffLine,
  tmux,
  typeLine,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import { startDialectServer } from "../support/dialect_server.ts";

warnWithoutTmux("the chat's collapsible reasoning in a real terminal");

const count = (text: string, part: string) => text.split(part).length - 1;

Deno.test({
  name:
    "chat: reasoning is collapsed by default; Ctrl-T writes it out and shows the next live; /thinking; resumed",
  ignore: !hasTmux,
  async fn() {
    const server = startDialectServer("deepseek", [
      { reasoning: "Step one: SECRET-FIRST-THOUGHT\nStep two.", text: "First answer here." },
      { reasoning: "LIVE-SECOND-THOUGHT\nstill thinking", text: "Second answer here." },
      { reasoning: "HIDDEN-THIRD-THOUGHT", text: "Third answer here." },
    ]);
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "test-model" });
    const session = sessionName("skiff-thinking");
    const resumed = sessionName("skiff-thinking-c");
    try {
      await newSession(session, skiffLine(sandbox));
      await shows(session, "Ctrl-D to exit");
      await typeLine(session, "first question");
      let pane = await shows(session, "First answer here.");
      assert(pane.includes("✻ thought for 2 lines"), pane);
      assert(!pane.includes("SECRET-FIRST-THOUGHT"), "collapsed by default");

      // Ctrl-T: the last reasoning written out, and the next one shown as it streams.
      await press(session, "C-t");
      pane = await shows(session, "SECRET-FIRST-THOUGHT");
      assert(pane.includes("Reasoning shown from now on"), pane);
      assert(pane.includes("✻ reasoning, 2 lines:"), pane);
      await typeLine(session, "second question");
      pane = await shows(session, "Second answer here.");
      assert(pane.includes("LIVE-SECOND-THOUGHT"), pane);
      assert(pane.indexOf("LIVE-SECOND-THOUGHT") < pane.indexOf("Second answer here."), pane);

      // /thinking off: collapsed again; /thinking writes the last one out.
      await typeLine(session, "/thinking off");
      await shows(session, "Reasoning collapsed to one line from now on");
      await typeLine(session, "third question");
      pane = await shows(session, "Third answer here.");
      assert(!pane.includes("HIDDEN-THIRD-THOUGHT"), "collapsed after /thinking off");
      await typeLine(session, "/thinking");
      pane = await shows(session, "HIDDEN-THIRD-THOUGHT");
      assertEquals(count(pane, "LIVE-SECOND-THOUGHT"), 1, pane);
      assertEquals(server.answers, ["ok", "ok", "ok"]);
      await press(session, "C-d");
      await shows(session, "SKIFF_EXIT=0");

      // skiff -c: the replay keeps the collapsed line; /thinking reads the store.
      await newSession(resumed, skiffLine(sandbox, "-c"));
      pane = await shows(resumed, "Ctrl-D to exit");
      assert(pane.includes("✻ thought for 2 lines\nFirst answer here."), pane);
      assert(pane.includes("✻ thought for 1 line\nThird answer here."), pane);
      assert(!pane.includes("HIDDEN-THIRD-THOUGHT"), pane);
      await typeLine(resumed, "/thinking");
      await shows(resumed, "HIDDEN-THIRD-THOUGHT");
      await press(resumed, "C-d");
      await shows(resumed, "SKIFF_EXIT=0");
    } finally {
      await tmux("kill-session", "-t", session).catch(() => "");
      await tmux("kill-session", "-t", resumed).catch(() => "");
      await server.close();
      await removeWhenQuiet(sandbox);
    }
  },
});

Deno.test({
  name:
    "chat at 60 columns: /thinking on shows the reasoning live, wrapped by skiff within the width",
  ignore: !hasTmux,
  async fn() {
    const long = `ALPHA-START ${"reasoning goes on ".repeat(8)}OMEGA-END`;
    const server = startDialectServer("deepseek", [
      { reasoning: `${long}\nShort last line.`, text: "Narrow answer." },
    ]);
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "test-model" });
    const session = sessionName("skiff-thinking-60");
    try {
      await newSession(session, skiffLine(sandbox), 60, 30);
      await shows(session, "Ctrl-D to exit");
      await typeLine(session, "/thinking on");
      await shows(session, "Reasoning shown as it streams");
      await typeLine(session, "narrow question");
      const pane = await waitFor(
        session,
        (screen) => screen.includes("Narrow answer.") && screen.includes("OMEGA-END"),
        "the answer after its reasoning",
      );
      const rows = pane.split("\n");
      // capture-pane -J joins rows the terminal wrapped itself: apart, skiff wrapped them.
      const alpha = rows.findIndex((row) => row.includes("ALPHA-START"));
      const omega = rows.findIndex((row) => row.includes("OMEGA-END"));
      assert(alpha >= 0 && omega > alpha, pane);
      for (const row of rows.slice(alpha, omega + 1)) assert(row.length <= 60, row);
      assert(pane.includes("Short last line."), pane);
      assert(pane.includes("✻ thought for 2 lines"), pane);
      await press(session, "C-d");
      await shows(session, "SKIFF_EXIT=0");
    } finally {
      await tmux("kill-session", "-t", session).catch(() => "");
      await server.close();
      await removeWhenQuiet(sandbox);
    }
  },
});
