/**
 * skiff's own lines at a narrow real terminal (tmux, 60 columns) against the
 * scripted mock: the approval question wraps at spaces, not inside a word,
 * and the command printed at exit is never cut between two rows.
 */
import { assert, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inShell,
  press,
  shows,
  type,
  visible,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("wrapping of skiff's own lines in a real terminal");

Deno.test({
  name: "chat at 60 columns: the approval question wraps at spaces; the resume command stays whole",
  ignore: !hasTmux,
  async fn() {
    await inShell(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "echo narrow-terminal" } }] },
        { text: "Narrow done." },
      ],
      async ({ session, shell }) => {
        await shell("skiff");
        await shows(session, "Ctrl-D to exit");
        await type(session, "run it");
        await press(session, "Enter");
        await shows(session, "[Esc] stop");
        // The pane's rows as drawn (not joined back where the terminal folded them).
        const rows = (await visible(session)).map((row) => row.trimEnd());
        const question = rows.slice(rows.findIndex((row) => row.startsWith("Allow?")));
        const words = question.join(" ").split(/\s+/);
        for (const word of ["(this", "session)", "in", "this", "project", "[Esc]", "stop"]) {
          assert(words.includes(word), `"${word}" cut across rows:\n${question.join("\n")}`);
        }
        assert(question.every((row) => row.length < 60), question.join("\n"));
        // A choice that fits a row is kept whole on one, its rule with it.
        assert(
          question.includes("[a] always bash(echo narrow-terminal *) (this session)"),
          question.join("\n"),
        );
        assert(
          question.some((row) =>
            row.startsWith("[h] always bash(echo narrow-terminal *) in this project")
          ),
          question.join("\n"),
        );
        await press(session, "y");
        await shows(session, "Narrow done.");
        await press(session, "C-d");
        await shows(session, "Continue this conversation with:");
        const after = (await visible(session)).map((row) => row.trimEnd());
        const command = after.find((row) => /skiff --resume/.test(row)) ?? "";
        assert(
          /^\s*skiff --resume ses_\w+$/.test(command),
          `the command cut:\n${after.join("\n")}`,
        );
        assertStringIncludes(after.join("\n"), "Continue this conversation with:");
      },
      { width: 60 },
    );
  },
});
