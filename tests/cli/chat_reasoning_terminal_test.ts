/**
 * The chat at a real terminal (tmux) against a DeepSeek-dialect server in
 * thinking mode (tests/support/dialect_server.ts): the reasoning shows as
 * one collapsed line above the answer, and the tool session's follow-up is
 * accepted because the reasoning went back with the call.
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
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import { startDialectServer } from "../support/dialect_server.ts";

warnWithoutTmux("the chat's reasoning display in a real terminal");

Deno.test({
  name:
    "chat: DeepSeek's reasoning is one collapsed line above the answer; the follow-up is accepted",
  ignore: !hasTmux,
  async fn() {
    const server = startDialectServer("deepseek", [
      {
        reasoning: "The user asks about notes.txt.\nSECRET-MIDDLE-LINE\nI will read it.",
        call: { name: "read", arguments: { file_path: "notes.txt" } },
      },
      { reasoning: "It says 42.", text: "The notes say the answer is 42." },
    ]);
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "test-model" });
    const session = sessionName("skiff-think");
    try {
      await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "the answer is 42\n");
      await newSession(session, skiffLine(sandbox));
      await shows(session, "Ctrl-D to exit");
      await typeLine(session, "What do the notes say?");
      const pane = await shows(session, "The notes say the answer is 42.");
      assert(pane.includes("thought for 3 lines"), pane);
      assert(pane.includes("thought for 1 line"), pane);
      assert(!pane.includes("SECRET-MIDDLE-LINE"), "the reasoning stays collapsed");
      assertEquals(server.answers, ["ok", "ok"]);
      await press(session, "C-d");
      await shows(session, "SKIFF_EXIT=0");
    } finally {
      await tmux("kill-session", "-t", session).catch(() => "");
      await server.close();
      await removeWhenQuiet(sandbox);
    }
  },
});
