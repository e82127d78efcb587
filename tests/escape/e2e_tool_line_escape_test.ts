/**
 * A tool line names what ran, not the model's label for it: the attacker
 * model runs `false` (and a command whose second line does the work) with
 * the description "run the tests", in `skiff run`'s text mode (what a CI log
 * shows) and in the chat at a real terminal (tmux). The line must show the
 * command; the label may follow, marked as the model's (`# run the tests`).
 * Control: the label did reach skiff (the event's input carries it), so a
 * line built from it would have hidden the command.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { hasTmux, inChat, press, shows, typeLine, warnWithoutTmux } from "../support/chat_tmux.ts";
import { exists, runEvents, withAttack } from "./e2e_support.ts";

warnWithoutTmux("tool line escape test in the chat");

const LABEL = "run the tests";
const labelled = (command: string) => ({
  name: "bash",
  arguments: { command, description: LABEL },
});

Deno.test("e2e tool line (text mode): a failing command labelled 'run the tests' is shown as the command it was, the label marked as the model's", async () => {
  await withAttack([
    { toolCalls: [labelled("false")] },
    { toolCalls: [labelled("echo tests passed\ntouch made-by-line-two")] },
    { text: "All green." },
    // The control's run.
    { toolCalls: [labelled("false")] },
    { text: "All green." },
  ], async (sandbox) => {
    const result = await runSkiff(["run", "--yes", "run the tests"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const lines = result.stderr.split("\n");
    const first = lines.find((line) => line.includes("(exit 1)")) ?? "";
    assertStringIncludes(first, "✗ bash false (exit 1)");
    assertStringIncludes(first, `# ${LABEL}`);
    assert(
      !result.stderr.includes(`bash ${LABEL}`),
      `the label stood for the command:\n${result.stderr}`,
    );
    // The second line of a command is not hidden behind the first.
    assertStringIncludes(
      result.stderr,
      "✓ bash echo tests passed ⏎ touch made-by-line-two (exit 0)",
    );
    assert(await exists(path.join(sandbox.workspace, "made-by-line-two")));

    // Control: the label reached skiff with the call, and the JSON title is the command.
    const json = await runSkiff(["run", "--json", "--yes", "again"], sandbox);
    const { events } = runEvents(json.stdout);
    const started = events.find((event) => event.type === "tool.started");
    assertEquals((started?.input as Record<string, unknown>)?.description, LABEL);
    const completed = events.find((event) => event.type === "tool.completed");
    assertEquals(completed?.title, "false");
  });
});

Deno.test({
  name:
    "e2e tool line (chat): the chat's line for a labelled command shows the command, the label after it",
  ignore: !hasTmux,
  async fn() {
    await inChat([
      { toolCalls: [labelled("false")] },
      { text: "All green." },
    ], async (session) => {
      await typeLine(session, "run the tests");
      await shows(session, "Allow?");
      await press(session, "y");
      const screen = await shows(session, "All green.", { history: 300 });
      const line = screen.split("\n").find((row) => row.includes("(exit 1)")) ?? "";
      assertStringIncludes(line, "✗ bash false (exit 1)");
      assertStringIncludes(line, `# ${LABEL}`);
      assert(!screen.includes(`bash ${LABEL}`), `the label stood for the command:\n${screen}`);
    }, { prefix: "skiff-toolline" });
  },
});
