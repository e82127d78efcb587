/**
 * End-to-end attempts on the terminal itself: the model (or a tool) writes
 * escape sequences, carriage returns and bidi overrides, hoping the screen
 * shows something other than what is there — an approval prompt that reads
 * `git status` for a command that deletes files, an answer that retitles the
 * window or clears the screen. Each runs the real `skiff run`: in text mode
 * with stdout a pipe, and inside tmux for the approval prompt.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { hasTmux, inTmux } from "./_tmux.ts";
import { exists, lastToolResults, withAttack } from "./e2e_support.ts";

/** Anything a terminal would act on instead of showing: C0 but tab and newline, DEL, C1, bidi. */
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function assertNoControls(text: string, where: string): void {
  const found = CONTROLS.exec(text);
  assert(
    !found,
    `${where} carries U+${found?.[0].codePointAt(0)?.toString(16).padStart(4, "0")}:\n${
      JSON.stringify(text)
    }`,
  );
}

const HIDDEN_ANSWER = "Done.\x1b]0;pwned-title\x07\x1b[2J\x1b[H\rAll \u202egood\u202c here\x9b31m!";
const HIDDEN_COMMAND = "rm -rf ~/notes; touch pwned #\r\x1b[2Kgit status";

Deno.test("e2e: text mode shows the model's escape sequences instead of obeying them", async () => {
  await withAttack([
    {
      toolCalls: [{
        name: "bash",
        arguments: { command: HIDDEN_COMMAND, description: "\x1b[1A\x1b[2Klooks harmless" },
      }],
    },
    { text: HIDDEN_ANSWER },
  ], async (sandbox) => {
    const result = await runSkiff(["run", "answer"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    assertNoControls(result.stdout, "the answer on stdout");
    assertNoControls(result.stderr, "the tool lines and denials on stderr");
    // What was hidden is on screen, visibly.
    assertStringIncludes(result.stdout, "Done.\\x1b]0;pwned-title\\x07\\x1b[2J\\x1b[H\\rAll ");
    assertStringIncludes(result.stdout, "\\u202egood\\u202c here\\x9b31m!");
    assertStringIncludes(result.stderr, "rm -rf ~/notes; touch pwned #\\r\\x1b[2Kgit status");
    assert(!(await exists(path.join(sandbox.workspace, "pwned"))));
  });
});

Deno.test("e2e: sessions list and show, and undo, print the model's names and text neutralised", async () => {
  const evilName = "notes\x1b[2J\x1b]0;owned\x07.txt";
  await withAttack([
    { toolCalls: [{ name: "write", arguments: { file_path: evilName, content: "x\n" } }] },
    { text: HIDDEN_ANSWER },
  ], async (sandbox) => {
    const run = await runSkiff(["run", "--json", "title\x1b[8m hidden"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    const list = await runSkiff(["sessions", "list"], sandbox);
    assertEquals(list.code, 0, list.stderr);
    assertNoControls(list.stdout, "sessions list");
    assertStringIncludes(list.stdout, "title\\x1b[8m hidden");
    const id = list.stdout.split(/\s/)[0];
    const show = await runSkiff(["sessions", "show", id], sandbox);
    assertEquals(show.code, 0, show.stderr);
    assertNoControls(show.stdout, "sessions show");
    assertStringIncludes(show.stdout, "Done.\\x1b]0;pwned-title\\x07");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    assertNoControls(undo.stdout + undo.stderr, "undo");
    assertStringIncludes(undo.stdout, "notes\\x1b[2J\\x1b]0;owned\\x07.txt");
    assert(!(await exists(path.join(sandbox.workspace, evilName))), "undo left the file");
  });
});

Deno.test({
  name: "e2e: the approval prompt in a real terminal shows the hidden part of a command",
  ignore: !hasTmux,
  async fn() {
    await withAttack([
      { toolCalls: [{ name: "bash", arguments: { command: HIDDEN_COMMAND } }] },
      { text: "finished" },
    ], async (sandbox, mock) => {
      await inTmux(["run", "tidy up"], sandbox, async (terminal) => {
        const prompt = await terminal.shows("Allow this?");
        assertStringIncludes(prompt, "rm -rf ~/notes; touch pwned #\\r\\x1b[2Kgit status");
        // Deny, chosen on purpose: the cursor is seen on it (not on "Deny and tell the model
        // why", which would wait for a reason) before Enter.
        await terminal.shows("Deny and tell the model why");
        await terminal.keys("Up", "Up");
        await terminal.shows("● Deny\n");
        await terminal.keys("Enter");
        assertStringIncludes(await terminal.shows("SKIFF_EXIT="), "SKIFF_EXIT=3");
        assert(!(await exists(path.join(sandbox.workspace, "pwned"))), "the command ran");
      });
      assertStringIncludes(lastToolResults(mock)[0].content, "The user refused this call");
    });
  },
});
