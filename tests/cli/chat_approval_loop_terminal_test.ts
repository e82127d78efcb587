/**
 * The chat at a real terminal (tmux) against the scripted mock: after an
 * approved tool call, the input and the status line come back by
 * themselves, every time. One chat answers 50 approvals, two a turn for
 * 25 turns; after each turn the bottom rows must show the empty input and
 * the status line with no key pressed.
 */
import { assert } from "../support/assert.ts";
import type { MockTurn } from "../support/mock_server.ts";
import {
  hasTmux,
  inChat,
  press,
  shows,
  tmux,
  typeLine,
  visible,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("the chat's approval loop in a real terminal");

/** Approvals answered in one chat. */
const ROUNDS = 25;

/** The last rows of the pane, bottom blank rows left out. */
async function bottomRows(session: string): Promise<string[]> {
  const rows = await visible(session);
  while (rows.length && !rows.at(-1)!.trim()) rows.pop();
  return rows.slice(-3);
}

Deno.test({
  name:
    "chat approvals: after each of 25 turns of two approved calls the input and status line come back with no key pressed",
  ignore: !hasTmux,
  async fn() {
    const script: MockTurn[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Two calls a turn (two questions in a row), then a streamed markdown answer.
      script.push(
        {
          toolCalls: [
            { name: "bash", arguments: { command: `seq 1 40; echo round-${round}` } },
            { name: "bash", arguments: { command: `echo second-${round}` } },
          ],
        },
        {
          text: `Some **bold** words.\n\n- a list item\n\nFinished round ${round}.`,
          wire: { eventDelayMs: 5 },
        },
      );
    }
    await inChat(script, async (session) => {
      // The size the chat was first tried at by hand.
      await tmux("resize-window", "-t", session, "-x", "100", "-y", "30");
      for (let round = 1; round <= ROUNDS; round++) {
        await typeLine(session, `go ${round}`);
        await shows(session, `$ seq 1 40; echo round-${round}`);
        await press(session, "y");
        await shows(session, `$ echo second-${round}`);
        await press(session, "y");
        await shows(session, `Finished round ${round}.`);
        // No key from here on: the bottom must settle to the input and the status line.
        let rows: string[] = [];
        const deadline = Date.now() + 5_000;
        for (;;) {
          rows = await bottomRows(session);
          const input = rows.at(-2) ?? "";
          const status = rows.at(-1) ?? "";
          if (input.trimEnd() === ">" && /^mock-model · build/.test(status)) break;
          assert(
            Date.now() < deadline,
            `round ${round}: the input and status line did not come back:\n${rows.join("\n")}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }, { prefix: "skiff-approve-loop" });
  },
});
