/**
 * `skiff --resume` alone at a real terminal (tmux) against the mock: the
 * picker lists this folder's sessions (newest first, title, age, size), the
 * number typed opens that one with its earlier messages shown; a number not
 * on the list is said so and asked again; with no session yet, a new chat
 * opens as the picker says.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, type Sandbox } from "../support/cli.ts";
import {
  hasTmux,
  inTerminal,
  press,
  shows,
  typeLine,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("the --resume picker tests in a real terminal");

/** `skiff --resume` in tmux over a sandbox where `prompts` ran first, one `skiff run` each. */
async function withPicker(
  prompts: string[],
  drive: (session: string, sandbox: Sandbox) => Promise<void>,
): Promise<void> {
  await inTerminal(
    [...prompts.map((prompt) => ({ text: `Answer to ${prompt}.` })), { text: "Picked up again." }],
    "--resume",
    (session, sandbox) => drive(session, sandbox),
    {
      prefix: "skiff-pick",
      async prepare(sandbox) {
        for (const prompt of prompts) {
          const run = await runSkiff(["run", prompt], sandbox);
          assertEquals(run.code, 0, run.stderr);
        }
      },
    },
  );
}

Deno.test({
  name:
    "chat --resume: the picker lists this folder's sessions newest first; the number typed opens that one with its messages",
  ignore: !hasTmux,
  async fn() {
    await withPicker(["the walrus", "the carpenter"], async (session) => {
      const listed = await shows(session, "Resume which");
      assert(/^ 1\. the carpenter/m.test(listed), listed);
      assert(/^ 2\. the walrus/m.test(listed), listed);
      await typeLine(session, "2");
      const opened = await shows(session, "Ctrl-D to exit");
      assertStringIncludes(opened, "› the walrus");
      assertStringIncludes(opened, "Answer to the walrus.");
      assert(!opened.includes("Answer to the carpenter."), opened);
      await typeLine(session, "go on");
      await shows(session, "Picked up again.");
      await press(session, "C-d");
      assertStringIncludes(await shows(session, "SKIFF_EXIT="), "SKIFF_EXIT=0");
    });
  },
});

Deno.test({
  name:
    "chat --resume: a number not on the list is said so and asked again; Enter picks the newest",
  ignore: !hasTmux,
  async fn() {
    await withPicker(["the walrus"], async (session) => {
      await shows(session, "Resume which");
      await typeLine(session, "7");
      await shows(session, "No session number 7");
      await press(session, "Enter");
      const opened = await shows(session, "Ctrl-D to exit");
      assertStringIncludes(opened, "› the walrus");
    });
  },
});

Deno.test({
  name: "chat --resume with no session in this folder opens a new chat, as it says",
  ignore: !hasTmux,
  async fn() {
    await withPicker([], async (session) => {
      const screen = await shows(session, "No earlier session in");
      assertStringIncludes(screen, "starting a new one");
      await shows(session, "Ctrl-D to exit");
      await typeLine(session, "hello");
      await shows(session, "Picked up again.");
    });
  },
});
