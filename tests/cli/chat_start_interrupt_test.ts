/**
 * Ctrl-C pressed in the chat after the first message is sent but before the
 * engine is up (config, the engine's Worker and the session still opening)
 * stops that turn, as docs/interactive.md says of Ctrl-C "while the agent
 * works": the model's answer never shows.
 */
import { assert } from "../support/assert.ts";
import {
  hasTmux,
  inChat,
  press,
  shows,
  tmux,
  typeLine,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("chat Ctrl-C during the engine's start");

Deno.test({
  name: "chat: Ctrl-C while the engine starts for the first message stops the turn",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "too late", delayMs: 3_000 }], async (session) => {
      await typeLine(session, "stop me");
      await new Promise((resolve) => setTimeout(resolve, 30));
      await press(session, "C-c");
      await shows(session, "interrupted", { timeoutMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const screen = await tmux("capture-pane", "-t", session, "-p", "-J", "-S", "-400");
      assert(!screen.includes("too late"), `the turn went on after Ctrl-C:\n${screen}`);
    });
  },
});
