/**
 * How the chat's answers and input look at a real terminal (tmux at 100×30,
 * 80×24 and 60×20) against the scripted mock: a markdown table aligned with
 * its header rule, plain-text marks for emphasis without colour, a long
 * answer leaving the prompt at the bottom of the screen, a 300-line paste
 * collapsed in the input and sent whole, a refused call said once, and
 * TERM=dumb keeping the message and the answer apart.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inShell,
  press,
  shows,
  tmux,
  typeLine,
  visible,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import type { MockServer } from "../support/mock_server.ts";

warnWithoutTmux("the chat's rendering of tables, long answers and pastes");

const TABLE = [
  "| Tool | What it does | Runs |",
  "| :--- | :--- | ---: |",
  "| `rg` | searches **every** file under the workspace for a regular expression, fast, and leaves out what the ignore files name | 12 |",
  "| ls | lists | 3 |",
  "",
  "TABLE-END",
].join("\n");

const LONG = Array.from({ length: 70 }, (_, index) => `- point ${index + 1} of the long answer`)
  .join("\n") + "\n\nLONG-END";

const PASTE = Array.from({ length: 300 }, (_, index) => `pasted row ${index + 1}`).join("\n");

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of the last user message the mock received. */
function lastUserMessage(mock: MockServer): string {
  const messages = mock.requests.at(-1)?.messages as { role: string; content: unknown }[];
  const user = messages.findLast((message) => message.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
}

/** Pastes `text` as a terminal does when the program asked for bracketed paste. */
async function paste(session: string, text: string): Promise<void> {
  await tmux("set-buffer", "-b", "chat-paste", text);
  await tmux("paste-buffer", "-p", "-b", "chat-paste", "-t", session);
}

/** The row the prompt (`>`) is on, and the screen's height, once the status line shows idle. */
async function promptRow(session: string): Promise<{ row: number; rows: string[] }> {
  const rows = await visible(session);
  while (rows.length && rows.at(-1) === "") rows.pop();
  return { row: rows.findLastIndex((line) => line.startsWith(">")), rows };
}

for (const [width, height] of [[100, 30], [80, 24], [60, 20]]) {
  Deno.test({
    name:
      `chat at ${width}×${height}: aligned table, prompt kept at the bottom, long paste collapsed`,
    ignore: !hasTmux,
    async fn() {
      await inShell(
        [{ text: TABLE }, { text: LONG }, { text: "Got the paste." }],
        async ({ session, shell, mock }) => {
          await tmux("resize-window", "-t", session, "-x", String(width), "-y", String(height));
          await shell("skiff");
          await shows(session, "Ctrl-D to exit");

          await typeLine(session, "show a table");
          const screen = await shows(session, "TABLE-END");
          const lines = screen.split("\n");
          const header = lines.findIndex((line) => line.startsWith("Tool"));
          assert(header >= 0, screen);
          // The header rule under the header, and every row's separators at the same cells.
          assert(/^─+┼─+┼─+$/.test(lines[header + 1]), lines[header + 1]);
          const rows = lines.slice(header, lines.findIndex((line) => line === "TABLE-END") - 1);
          const bars = rows.map((line) => [...line.matchAll(/[│┼]/g)].map((match) => match.index));
          for (const row of bars) assertEquals(row, bars[0], rows.join("\n"));
          assert(rows.length > 4, "the long cell is wrapped inside its column");
          // NO_COLOR: bold and code keep their marks.
          assertStringIncludes(screen, "`rg`");
          assertStringIncludes(screen, "**every**");
          for (const line of rows) assert(line.length < width, line);

          await typeLine(session, "say a lot");
          await shows(session, "LONG-END");
          await waitFor(session, (text) => !text.includes("working…"), "the turn's end");
          await pause(300);
          const after = await promptRow(session);
          // The prompt and the status line sit at the bottom, not at the top over empty rows.
          assert(after.row >= height - 3, `prompt on row ${after.row}:\n${after.rows.join("\n")}`);

          await paste(session, PASTE);
          const collapsed = await shows(session, "[pasted 300 lines]");
          assert(!collapsed.includes("pasted row 150"), "the paste is not drawn row by row");
          await shows(session, "Ctrl-O shows the pasted text");
          const input = await promptRow(session);
          assertStringIncludes(input.rows[input.row], "[pasted 300 lines]");
          await press(session, "Enter");
          await shows(session, "Got the paste.");
          const sent = lastUserMessage(mock);
          assertStringIncludes(sent, "pasted row 1\npasted row 2\n");
          assertStringIncludes(sent, "pasted row 299\npasted row 300");

          // Ctrl-O puts a collapsed paste in whole.
          await paste(session, PASTE);
          await shows(session, "[pasted 300 lines]");
          await press(session, "C-o");
          await waitFor(
            session,
            (text) => text.includes("pasted row 300") && !text.includes("[pasted 300 lines]"),
            "the paste shown whole",
            { history: 0 },
          );
          // Ctrl-C clears the input, Ctrl-D then exits.
          await press(session, "C-c");
          await pause(200);
          await press(session, "C-d");
          await shows(session, "Continue this conversation with");
        },
        { width, env: { NO_COLOR: "1" } },
      );
    },
  });
}

Deno.test({
  name: "chat: a refused call is said once, and no 'always' is offered for a destructive command",
  ignore: !hasTmux,
  async fn() {
    await inShell(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "git push origin main" } }] },
        { toolCalls: [{ name: "bash", arguments: { command: "rm -rf src" } }] },
        { text: "Nothing pushed, nothing removed." },
      ],
      async ({ session, shell }) => {
        await tmux("resize-window", "-t", session, "-x", "100", "-y", "30");
        await shell("skiff");
        await shows(session, "Ctrl-D to exit");
        await typeLine(session, "push and clean");
        const question = await shows(session, "[n] no");
        assertStringIncludes(question, "always bash(git push origin *)");
        await press(session, "n");
        await waitFor(session, (text) => text.includes("rm -rf src\n"), "the second question");
        const second = await shows(session, "[n] no", { history: 0 });
        const asked = second.slice(second.lastIndexOf("$ rm -rf src"));
        assert(!asked.includes("always"), asked);
        await press(session, "n");
        const screen = await shows(session, "Nothing pushed, nothing removed.");
        const push = screen.split("\n").filter((line) => line.includes("git push origin main"));
        // The question's command, the rule line, and one tool line: no separate "refused" note.
        assertEquals(push.filter((line) => line.startsWith("✗")).length, 1, screen);
        assert(!screen.includes("refused (user)"), screen);
        assertEquals(screen.split("denied: The user refused this call").length - 1, 2, screen);
      },
      { width: 100 },
    );
  },
});

Deno.test({
  name: "chat with TERM=dumb: the message and the answer are on lines of their own",
  ignore: !hasTmux,
  async fn() {
    await inShell(
      [{ text: "First answer." }, { text: "Second answer." }],
      async ({ session, shell }) => {
        await shell("skiff");
        await shows(session, "Ctrl-D to exit");
        await typeLine(session, "first question");
        await shows(session, "First answer.");
        await typeLine(session, "second question");
        const screen = await shows(session, "Second answer.");
        assertStringIncludes(screen, "› first question\nFirst answer.");
        assertStringIncludes(screen, "› second question\nSecond answer.");
      },
      { width: 80, env: { TERM: "dumb" } },
    );
  },
});
