/**
 * The chat at a real terminal (tmux) against the scripted mock, started the
 * way the README starts it (`deno task skiff`): after approved tool calls the
 * input and the status line come back by themselves, every time. Deno's own
 * module loader clears "its" progress line on the terminal (`ESC[0G ESC[2K
 * ESC[J`) now and then while the engine works; when one of those clears
 * landed after the chat's last redraw of a turn, the bottom region stayed
 * erased until a key was pressed. skiff is launched with `--quiet`, so Deno
 * writes nothing of its own; the test records everything the pane received
 * and finds none of those clears, and checks the bottom after each turn.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "../support/assert.ts";
import type { MockTurn } from "../support/mock_server.ts";
import {
  hasTmux,
  inShell,
  press,
  shows,
  tmux,
  typeLine,
  visible,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("the chat's approval loop in a real terminal");

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Turns of the chat, each with two approved calls. */
const ROUNDS = 25;

/** What Deno writes to clear its progress line: erase the line, then the screen below. */
const DENO_CLEAR = "\x1b[0G\x1b[2K";

/** The last two non-blank rows of the pane: the input and the status line once a turn is over. */
async function bottomRows(session: string): Promise<string[]> {
  return (await visible(session)).filter((row) => row.trim()).slice(-2);
}

Deno.test({
  name:
    "chat approvals: through deno task skiff, 25 turns of two approved calls each; the input and status line come back after every turn with no key pressed",
  ignore: !hasTmux,
  async fn() {
    const script: MockTurn[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      script.push(
        {
          toolCalls: [
            { name: "bash", arguments: { command: `seq 1 40; echo round-${round}` } },
            { name: "bash", arguments: { command: `echo second-${round}` } },
          ],
        },
        { text: `Some **bold** words.\n\n- a list item\n\nFinished round ${round}.` },
      );
    }
    await inShell(script, async ({ session, sandbox, shell }) => {
      const received = path.join(sandbox.root, "pane.log");
      await shell(`${Deno.execPath()} task --config ${REPO}/deno.json skiff`);
      await shows(session, "Ctrl-D to exit", { timeoutMs: 60_000 });
      // Everything the terminal receives from here on, as it receives it.
      await tmux("pipe-pane", "-t", session, "-o", `cat >> '${received}'`);
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
          if (rows[0]?.trimEnd() === ">" && /^mock-model · build/.test(rows[1] ?? "")) break;
          assert(
            Date.now() < deadline,
            `round ${round}: the input and status line did not come back:\n${rows.join("\n")}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await tmux("pipe-pane", "-t", session);
      const output = await Deno.readTextFile(received);
      assert(output.includes("Finished round 25."), "the pane's output was not recorded");
      assertEquals(
        output.split(DENO_CLEAR).length - 1,
        0,
        "Deno wrote its own line clears to the chat's terminal",
      );
    }, { width: 100 });
  },
});
