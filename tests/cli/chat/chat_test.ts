/**
 * The interactive session in a real terminal: skiff runs in tmux against the
 * scripted mock model; the test types, then polls the screen with a deadline.
 */
import { assert, assertStringIncludes } from "../../support/assert.ts";
import {
  hasTmux,
  inChat,
  newSession,
  shows,
  skiffLine,
  tmux,
  warnWithoutTmux,
} from "../../support/chat_tmux.ts";

warnWithoutTmux("interactive chat tests");

const screenShows = (session: string, text: string) => shows(session, text, { history: 300 });

Deno.test({
  name: "chat: two prompts in one session, Ctrl-D exits 0 with a hint, and skiff -c shows them",
  ignore: !hasTmux,
  async fn() {
    await inChat(
      [{ text: "First answer here." }, { text: "Second answer here." }],
      async (session, sandbox) => {
        await tmux("send-keys", "-t", session, "-l", "hello one");
        await tmux("send-keys", "-t", session, "Enter");
        await screenShows(session, "First answer here.");
        await tmux("send-keys", "-t", session, "-l", "hello two");
        await tmux("send-keys", "-t", session, "Enter");
        await screenShows(session, "Second answer here.");
        await tmux("send-keys", "-t", session, "C-d");
        const screen = await screenShows(session, "SKIFF_EXIT=");
        assertStringIncludes(screen, "SKIFF_EXIT=0");
        const id = /skiff --resume (ses_\w+)/.exec(screen)?.[1];
        assert(id, `no continue hint on screen:\n${screen}`);
        // Back in: -c shows the earlier messages of the same session.
        const again = `${session}-c`;
        await newSession(again, skiffLine(sandbox, "-c"));
        try {
          const resumed = await screenShows(again, "Ctrl-D to exit");
          assertStringIncludes(resumed, `earlier in ${id}`);
          assertStringIncludes(resumed, "› hello one");
          assertStringIncludes(resumed, "Second answer here.");
        } finally {
          await tmux("kill-session", "-t", again);
        }
      },
    );
  },
});

async function sleepRunning(marker: string): Promise<boolean> {
  const output = await new Deno.Command("pgrep", { args: ["-f", marker], stdout: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout).trim() !== "";
}

Deno.test({
  name:
    "chat: an approval answered yes runs the command; Esc during it kills it and keeps the typed text",
  ignore: !hasTmux,
  async fn() {
    const marker = `sleep 3${Math.floor(Math.random() * 9)}.${Date.now() % 100000}`;
    await inChat(
      [
        { toolCalls: [{ name: "bash", arguments: { command: marker } }] },
        { text: "unused" },
      ],
      async (session) => {
        await tmux("send-keys", "-t", session, "-l", "wait a while");
        await tmux("send-keys", "-t", session, "Enter");
        await screenShows(session, "wants permission");
        await tmux("send-keys", "-t", session, "y");
        const deadline = Date.now() + 30_000;
        while (!(await sleepRunning(marker))) {
          assert(Date.now() < deadline, "the approved command never started");
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await tmux("send-keys", "-t", session, "-l", "kept text");
        await tmux("send-keys", "-t", session, "Escape");
        await screenShows(session, "every process it started were stopped");
        await screenShows(session, "> kept text");
        const gone = Date.now() + 10_000;
        while (await sleepRunning(marker)) {
          assert(Date.now() < gone, `${marker} is still running after Esc`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    );
  },
});

Deno.test({
  name: "chat: a pasted many-line text is not sent until Enter",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Got the paste." }], async (session) => {
      await tmux("set-buffer", "-b", "chatpaste", "line one\nline two\nline three");
      await tmux("paste-buffer", "-p", "-b", "chatpaste", "-t", session);
      const screen = await screenShows(session, "  line three");
      assert(!screen.includes("› line one"), `sent early:\n${screen}`);
      await tmux("send-keys", "-t", session, "Enter");
      await screenShows(session, "Got the paste.");
    });
  },
});
