/**
 * The chat in a real terminal (tmux) against the scripted mock model, for
 * what only shows there: an approval refused with a typed reason, Esc during
 * a streamed answer, `@` completion, a resize, coming back with the command
 * skiff printed, the status line, coloured code. skiff runs in a shell inside
 * tmux, so what it prints can be typed back exactly as printed (a `skiff`
 * on PATH runs this checkout). Every wait polls the screen against a deadline.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import type { MockServer } from "../support/mock_server.ts";
import {
  hasTmux,
  inShell as inTerminal,
  press,
  shows as showsOnScreen,
  tmux,
  type,
  visible,
  waitFor as waitForScreen,
  type WaitOptions,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("chat terminal tests");

const DEADLINE_MS = 60_000;

const ESC = "\x1b";
/** A colour or style sequence; tmux's own resets are not colour. */
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`);
const SGR_RESET = new RegExp(`${ESC}\\[(0|39|49)?m`, "g");
const COLOURED_CONST = new RegExp(`${ESC}\\[[0-9;]*m\\s*const`);

/** The pane (history included), polled until `until` holds; the last capture on timeout. */
const waitFor = (
  session: string,
  until: (screen: string) => boolean,
  what: string,
  options: WaitOptions = {},
) => waitForScreen(session, until, what, { timeoutMs: DEADLINE_MS, ...options });

const shows = (session: string, text: string, options: WaitOptions = {}) =>
  showsOnScreen(session, text, { timeoutMs: DEADLINE_MS, ...options });

const ready = (session: string) => shows(session, "Ctrl-D to exit");

/** The messages of the request the mock received `index`th, as JSON text. */
const sent = (mock: MockServer, index: number) => JSON.stringify(mock.requests[index]?.messages);

Deno.test({
  name: "chat terminal: an approval answered 'no, because …' sends the reason to the model",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 17" } }] },
        { text: "Understood, not sleeping." },
      ],
      async ({ session, mock, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "take a nap");
        await press(session, "Enter");
        await shows(session, "[r] no, and tell the model why");
        await press(session, "r");
        await type(session, "naps are for cats");
        await shows(session, "naps are for cats");
        await press(session, "Enter");
        await shows(session, "Understood, not sleeping.");
        assertStringIncludes(sent(mock, 1), "The user denied this: naps are for cats");
      },
    );
  },
});

Deno.test({
  name: "chat terminal: Esc at an approval question stops the turn; the call does not run",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "echo hi > esc.txt" } }] },
        { text: "The model was asked again." },
        { text: "Next prompt answered." },
      ],
      async ({ session, mock, sandbox, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "write the file");
        await press(session, "Enter");
        await shows(session, "[Esc] stop");
        await press(session, "Escape");
        await shows(session, "Continue here, or after exiting with: skiff --resume ses_");
        // The turn ended at the question: the model was not asked again, and nothing ran.
        assertEquals(mock.requests.length, 1);
        assert(!(await visible(session)).join("\n").includes("asked again"));
        assertEquals(
          await Deno.stat(path.join(sandbox.workspace, "esc.txt")).then(() => true, () => false),
          false,
        );
        // The chat goes on: the next prompt is answered.
        await press(session, "C-u");
        await type(session, "carry on");
        await press(session, "Enter");
        await shows(session, "The model was asked again.");
      },
    );
  },
});

Deno.test({
  name:
    "chat terminal: Esc during a streamed answer stops it, gives the input back and keeps the partial answer",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [{ text: "The first half of a long answer", wire: { stall: true } }],
      async ({ session, sandbox, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "tell me everything");
        await press(session, "Enter");
        await shows(session, "The first half of a long answer");
        await press(session, "Escape");
        await waitFor(
          session,
          (screen) =>
            /^> tell me everything/m.test(screen) &&
            screen.includes("Continue here, or after exiting with: skiff --resume ses_"),
          "the prompt back in the input after 'interrupted'",
        );
        await press(session, "C-u");
        await press(session, "C-d");
        const screen = await shows(session, "Continue this conversation with: skiff --resume");
        const id = /skiff --resume (ses_\w+)/.exec(screen)![1];
        const stored = await runSkiff(["sessions", "export", id], sandbox);
        assertEquals(stored.code, 0, stored.stderr);
        assertStringIncludes(stored.stdout, "The first half of a long answer");
      },
    );
  },
});

Deno.test({
  name: "chat terminal: @ and Tab complete a workspace file, and its content reaches the model",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [{ text: "Read it." }],
      async ({ session, mock, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "summarise @notes/pl");
        await press(session, "Tab");
        await shows(session, "summarise @notes/plan-for-march.txt");
        await press(session, "Enter");
        await shows(session, "Read it.");
        assertStringIncludes(sent(mock, 0), "PLAN-CONTENT-42");
      },
      {
        prepare: async (sandbox) => {
          await Deno.mkdir(path.join(sandbox.workspace, "notes"));
          await Deno.writeTextFile(
            path.join(sandbox.workspace, "notes", "plan-for-march.txt"),
            "PLAN-CONTENT-42\n",
          );
        },
      },
    );
  },
});

Deno.test({
  name:
    "chat terminal: the status line shows model and context %, and a resize redraws it at the new width",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [{ text: "Sized.", usage: { prompt_tokens: 50_000, completion_tokens: 10 } }],
      async ({ session, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "hello");
        await press(session, "Enter");
        await shows(session, "ctx 50%");
        const statusRows = (rows: string[]) =>
          rows.filter((row) => row.includes("mock-model · build"));
        const before = statusRows(await visible(session));
        assertEquals(before.length, 1);
        assertStringIncludes(before[0], "workspace-write", "the sandbox mode fits at 120 columns");
        await tmux("resize-window", "-t", session, "-x", "50", "-y", "20");
        await type(session, "after resize");
        await waitFor(
          session,
          (screen) => screen.includes("> after resize"),
          "typing after the resize",
        );
        const rows = await visible(session);
        const status = statusRows(rows);
        assertEquals(status.length, 1, `one status line after the resize:\n${rows.join("\n")}`);
        // At 50 columns the sandbox mode is the first to go: a status line
        // still drawn for 120 columns would hold it, wrapped over two rows.
        assert(
          !rows.some((row) => row.includes("workspace-write")),
          `status not redrawn for 50 columns:\n${rows.join("\n")}`,
        );
        assertStringIncludes(status[0], "ctx 50%");
        assertEquals(rows.filter((row) => row.startsWith("> ")).length, 1, rows.join("\n"));
      },
      {
        prepare: (sandbox) =>
          Deno.writeTextFile(
            path.join(sandbox.configDir, "config.json"),
            JSON.stringify({ models: { "mock-model": { context: 100_000 } } }),
          ),
      },
    );
  },
});

Deno.test({
  name: "chat terminal: the command printed at exit, typed as printed, shows the earlier messages",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [{ text: "Remember the walrus." }, { text: "Still here." }],
      async ({ session, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "first visit");
        await press(session, "Enter");
        await shows(session, "Remember the walrus.");
        await press(session, "C-d");
        const screen = await shows(session, "Continue this conversation with: skiff --resume");
        const printed =
          /Continue this conversation with: (skiff --resume ses_\w+)/.exec(screen)![1];
        await tmux("clear-history", "-t", session);
        await shell(`clear; ${printed}`);
        const resumed = await shows(session, "── now ──");
        assertStringIncludes(resumed, "› first visit");
        assertStringIncludes(resumed, "Remember the walrus.");
        await press(session, "C-d");
        await shows(session, "$ ");
        await tmux("clear-history", "-t", session);
        await shell("clear; skiff -c");
        const continued = await shows(session, "── now ──");
        assertStringIncludes(continued, "Remember the walrus.");
      },
    );
  },
});

Deno.test({
  name: "chat terminal: a fenced code block is drawn with syntax colour",
  ignore: !hasTmux,
  async fn() {
    const code = "```ts\nconst answer = 42; // the answer\n```";
    await inTerminal(
      [{ text: `One:\n\n${code}\n` }, { text: `Two:\n\n${code}\n` }],
      async ({ session, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "show code");
        await press(session, "Enter");
        await shows(session, "One:");
        await type(session, "again");
        await press(session, "Enter");
        const screen = await waitFor(
          session,
          (text) => /Two:/.test(text) && COLOURED_CONST.test(text.split("Two:")[1] ?? ""),
          "a coloured keyword after 'Two:'",
          { escapes: true },
        );
        assert(screen.includes("\x1b["), "colour sequences on screen");
      },
    );
  },
});

Deno.test({
  name: "chat terminal: what is typed while skiff is still starting is kept and sent on Enter",
  ignore: !hasTmux,
  async fn() {
    await inTerminal([{ text: "Early bird." }], async ({ session, mock, shell }) => {
      await shell("skiff");
      // Typed at once, long before the input is drawn (start-up takes a second or more).
      await type(session, "typed early");
      await press(session, "Enter");
      await ready(session);
      await shows(session, "Early bird.");
      const prompt = (mock.requests[0].messages as { role: string; content: string }[])
        .findLast((message) => message.role === "user")?.content;
      assertEquals(prompt, "typed early");
    });
  },
});

Deno.test({
  name: "chat terminal: TERM=dumb echoes what is typed and writes no escape sequence",
  ignore: !hasTmux,
  async fn() {
    const code = "```ts\nconst answer = 42;\n```";
    await inTerminal([{ text: `Plain:\n\n${code}\n` }], async ({ session, shell }) => {
      await shell("skiff");
      await ready(session);
      await type(session, "helloo");
      await press(session, "BSpace");
      await shows(session, "hello");
      await press(session, "Enter");
      const screen = await shows(session, "const answer = 42;", { escapes: true });
      assert(!screen.includes("\x1b"), `an escape sequence reached the screen:\n${screen}`);
    }, { env: { TERM: "dumb" } });
  },
});

Deno.test({
  name: "chat terminal: NO_COLOR draws the same without any colour",
  ignore: !hasTmux,
  async fn() {
    const code = "```ts\nconst answer = 42;\n```";
    await inTerminal(
      [{ text: `One:\n\n${code}\n` }, { text: `Two:\n\n${code}\n` }],
      async ({ session, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "show code");
        await press(session, "Enter");
        await shows(session, "One:");
        await type(session, "again");
        await press(session, "Enter");
        const screen = await shows(session, "Two:", { escapes: true });
        await shows(session, "ctx ");
        assert(!SGR.test(screen.replace(SGR_RESET, "")), screen);
      },
      { env: { NO_COLOR: "1" } },
    );
  },
});

Deno.test({
  name: "chat terminal: Ctrl-O writes out the last tool call's folded output whole",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "seq 1 60" } }] },
        { text: "Counted." },
      ],
      async ({ session, shell }) => {
        await shell("skiff");
        await ready(session);
        await type(session, "count to sixty");
        await press(session, "Enter");
        await shows(session, "wants permission");
        await press(session, "y");
        const folded = await shows(session, "Counted.");
        assertStringIncludes(folded, "more lines");
        assert(!/^\s*59\s*$/m.test(folded), `not folded:\n${folded}`);
        await press(session, "C-o");
        await waitFor(session, (screen) => /^\s*59\s*$/m.test(screen), "line 59 written out");
      },
    );
  },
});
