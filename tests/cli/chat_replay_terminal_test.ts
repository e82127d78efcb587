/**
 * A resumed chat at a real terminal (tmux) against the scripted mock: the
 * earlier prompts are drawn as they were live (markdown rendered, tool lines
 * and refusals shown) and what skiff told the model on the person's behalf
 * (a `!command`'s output) is not shown as the person's words.
 */
import { assert, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inShell,
  press,
  shows,
  tmux,
  type,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("the resumed chat's replay in a real terminal");

const ANSWER = "Here is **bold news** and `inline code`:\n\n- first point\n- second point\n\nDone.";

/** The screen from the replay's start to its end, colour left out. */
function replayed(screen: string): string {
  const start = screen.lastIndexOf("── earlier in");
  const end = screen.lastIndexOf("── now ──");
  assert(start >= 0 && end > start, `no replay on screen:\n${screen}`);
  return screen.slice(start, end);
}

Deno.test({
  name:
    "chat replay: -c and --resume <id> draw the earlier prompts as live: markdown, tool lines, no notes as the person's words",
  ignore: !hasTmux,
  async fn() {
    await inShell(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "echo replay-tool-ran" } }] },
        { text: ANSWER },
        { text: "Picked up." },
      ],
      async ({ session, shell }) => {
        await shell("skiff");
        await shows(session, "Ctrl-D to exit");
        // The person's own command: no question (docs/interactive.md).
        await type(session, "!echo bang-output");
        await press(session, "Enter");
        await shows(session, "✓ bash echo bang-output");
        await type(session, "tell me the news");
        await press(session, "Enter");
        await shows(session, "$ echo replay-tool-ran");
        await press(session, "y");
        const live = await shows(session, "Done.");
        assertStringIncludes(live, "• first point");
        await press(session, "C-d");
        const exit = await shows(session, "Continue this conversation with: skiff --resume");
        const id = /skiff --resume (ses_\w+)/.exec(exit)![1];
        for (const command of ["skiff -c", `skiff --resume ${id}`]) {
          await tmux("clear-history", "-t", session);
          await shell(`clear; ${command}`);
          const screen = replayed(await shows(session, "── now ──"));
          assertStringIncludes(screen, "› tell me the news");
          // The answer's markdown is drawn as it was live, not as its source.
          assertStringIncludes(screen, "bold news");
          assert(!screen.includes("**bold news**"), `markdown replayed raw:\n${screen}`);
          assertStringIncludes(screen, "• first point");
          assert(!/^- first point/m.test(screen), `list replayed raw:\n${screen}`);
          // Tool lines: the model's call and the typed !command, in their places.
          assertStringIncludes(screen, "bash echo replay-tool-ran");
          assertStringIncludes(screen, "bash echo bang-output");
          assert(
            screen.indexOf("bash echo bang-output") < screen.indexOf("› tell me the news") &&
              screen.indexOf("› tell me the news") < screen.indexOf("bash echo replay-tool-ran") &&
              screen.indexOf("bash echo replay-tool-ran") < screen.indexOf("Done."),
            `replayed out of order:\n${screen}`,
          );
          // skiff's note to the model is not the person's words.
          assert(!screen.includes("myself"), `a note shown as the person's words:\n${screen}`);
          assert(!screen.includes("skiff-note"), screen);
          await press(session, "C-d");
          await waitFor(
            session,
            (text) => text.includes("$ ") && text.includes("Continue this"),
            "exit",
          );
        }
      },
    );
  },
});
