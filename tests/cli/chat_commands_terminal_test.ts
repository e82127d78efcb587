/**
 * Slash commands in a real terminal: skiff runs in tmux against the scripted
 * mock model. A custom command from `.claude/commands/` reaches the model with
 * its argument substituted, and /undo puts back the file that prompt wrote
 * and tells the model so with the next message.
 */
import { assert, assertStringIncludes } from "../support/assert.ts";
import { hasTmux, inChat, shows, tmux, typeLine, warnWithoutTmux } from "../support/chat_tmux.ts";

warnWithoutTmux("interactive slash command tests");

const screenShows = (session: string, text: string) => shows(session, text, { history: 300 });

async function exists(file: string): Promise<boolean> {
  return await Deno.stat(file).then(() => true, () => false);
}

Deno.test({
  name:
    "chat: a custom command from .claude/commands sends its prompt with the argument substituted; /undo puts back what it wrote and the model is told",
  ignore: !hasTmux,
  async fn() {
    const script = [
      { toolCalls: [{ name: "write", arguments: { file_path: "greeting.txt", content: "hi\n" } }] },
      { text: "Greeted and wrote the file." },
      { text: "Noted the undo." },
    ];
    await inChat(script, async (session, sandbox, mock) => {
      await typeLine(session, "/help");
      await screenShows(session, "/greet <name>");
      await typeLine(session, "/greet Ada");
      await screenShows(session, "Greeted and wrote the file.");
      const first = JSON.stringify(mock.requests[0]?.messages);
      assertStringIncludes(first, "Greet Ada warmly (Ada).");
      const written = `${sandbox.workspace}/greeting.txt`;
      assert(await exists(written), "the approved write did not happen");

      await typeLine(session, "/undo");
      const preview = await screenShows(session, "Put these back?");
      assertStringIncludes(preview, "greeting.txt");
      await tmux("send-keys", "-t", session, "y");
      const deadline = Date.now() + 30_000;
      while (await exists(written)) {
        assert(Date.now() < deadline, "/undo did not remove the file the prompt wrote");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The model is told with the next message, so it does not work from
      // what it remembers writing.
      await typeLine(session, "what now");
      await screenShows(session, "Noted the undo.");
      const next = JSON.stringify(mock.requests.at(-1)?.messages);
      assertStringIncludes(next, "I undid the file changes of prompt 1");
      assertStringIncludes(next, "greeting.txt");
      assertStringIncludes(next, "what now");
      await tmux("send-keys", "-t", session, "C-d");
      assertStringIncludes(await screenShows(session, "SKIFF_EXIT="), "SKIFF_EXIT=0");
    }, {
      prefix: "skiff-cmd",
      prepare: async (sandbox) => {
        await Deno.mkdir(`${sandbox.workspace}/.claude/commands`, { recursive: true });
        await Deno.writeTextFile(
          `${sandbox.workspace}/.claude/commands/greet.md`,
          "---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $1 warmly ($ARGUMENTS).",
        );
      },
    });
  },
});

Deno.test({
  name:
    "chat: /undo that finds nothing to put back (the file already gone again) tells the model nothing",
  ignore: !hasTmux,
  async fn() {
    const script = [
      { toolCalls: [{ name: "write", arguments: { file_path: "notes.txt", content: "new\n" } }] },
      { text: "Wrote the notes." },
      { text: "Carrying on." },
    ];
    await inChat(script, async (session, sandbox, mock) => {
      const notes = `${sandbox.workspace}/notes.txt`;
      await typeLine(session, "write the notes");
      await screenShows(session, "Wrote the notes.");
      // The person removes the new file by hand before asking skiff to.
      await Deno.remove(notes);
      await typeLine(session, "/undo");
      await screenShows(session, "Put these back?");
      await tmux("send-keys", "-t", session, "y");
      await screenShows(session, "Nothing to undo");
      await typeLine(session, "what now");
      await screenShows(session, "Carrying on.");
      const next = JSON.stringify(mock.requests.at(-1)?.messages);
      assertStringIncludes(next, "what now");
      assert(!next.includes("undo the file changes"), `the model was told of an undo:\n${next}`);
      assert(!next.includes("undid the file changes"), `the model was told of an undo:\n${next}`);
    }, {
      prefix: "skiff-cmd",
    });
  },
});
