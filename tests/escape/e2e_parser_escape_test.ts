/**
 * End-to-end escape attempts on the bash rule table: the model hides a
 * command inside a line that starts with an allowed one, in the four ways
 * a hand-written splitter missed (a substitution inside arithmetic, a
 * here-document ended by `fi` whose body holds `#$(…)`, an unterminated
 * here-document, a comment inside `$( )`), and runs code through git's own
 * options under a `git *` rule. Each hidden command would create a marker
 * file in the workspace; a control command proves allowed commands do run.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { bash, exists, lastToolResults, needsBwrap, withAttack } from "./e2e_support.ts";

/** Each hides `touch <marker>` from a splitter that does not really parse. */
const HIDING_TRICKS: [string, string][] = [
  ["arithmetic", "git status $(( $(touch pwned-arithmetic) ))"],
  ["here-document ended by fi", "git status <<fi\n#$(touch pwned-heredoc-fi)\nfi"],
  ["unterminated here-document", "git status <<EOF\n#$(touch pwned-heredoc-open)"],
  ["comment inside $( )", 'git status $(#) "\ntouch pwned-comment\n# "\n)'],
];
const MARKERS = ["pwned-arithmetic", "pwned-heredoc-fi", "pwned-heredoc-open", "pwned-comment"];

async function assertNoMarkers(workspace: string, markers: string[]): Promise<void> {
  for (const marker of markers) {
    assert(!(await exists(path.join(workspace, marker))), `the hidden command ran: ${marker}`);
  }
}

Deno.test({
  name: "e2e: commands hidden in a git status line are asked, not run, under bash(git status*)",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      ...HIDING_TRICKS.map(([, command]) => ({ toolCalls: [bash(command)] })),
      { toolCalls: [bash("git status --short > control-ran")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(
        ["run", "--json", "--allow", "bash(git status*)", "look"],
        sandbox,
      );
      assert(result.code === 0 || result.code === 3, result.stderr);
      const results = lastToolResults(mock);
      assertEquals(results.length, HIDING_TRICKS.length + 1);
      HIDING_TRICKS.forEach(([name], index) => {
        assertStringIncludes(results[index].content, "Error", name);
      });
      // The reason reaches the model (and a person at a terminal).
      assertStringIncludes(results[2].content, "here-document is never closed");
      await assertNoMarkers(sandbox.workspace, MARKERS);
      // The rule still lets the plain command through: the run proves something.
      assert(await exists(path.join(sandbox.workspace, "control-ran")), results.at(-1)?.content);
    });
  },
});

Deno.test({
  name: "e2e: the read-only plan agent runs none of the hidden commands, even with --yes",
  ...needsBwrap,
  fn: async () => {
    for (const flags of [[], ["--yes"]]) {
      await withAttack([
        ...HIDING_TRICKS.map(([, command]) => ({ toolCalls: [bash(command)] })),
        { toolCalls: [bash("git status")] },
        { text: "done" },
      ], async (sandbox, mock) => {
        const result = await runSkiff(
          ["run", "--json", "--agent", "plan", ...flags, "look"],
          sandbox,
        );
        assert(result.code === 0 || result.code === 3, result.stderr);
        const results = lastToolResults(mock);
        assertEquals(results.length, HIDING_TRICKS.length + 1);
        await assertNoMarkers(sandbox.workspace, MARKERS);
        assertStringIncludes(results.at(-1)!.content, "On branch main");
      });
    }
  },
});

Deno.test({
  name: "e2e: git -c and --exec-path are not approved by a git * rule",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [bash("git -c alias.st='!touch pwned-alias' st")] },
      { toolCalls: [bash("git -c core.fsmonitor='touch pwned-fsmonitor' status")] },
      { toolCalls: [bash("git --config-env=core.fsmonitor=HOME status")] },
      { toolCalls: [bash("git --exec-path=. status")] },
      { toolCalls: [bash("git -C . status --short > control-ran")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(["run", "--json", "--allow", "bash(git *)", "look"], sandbox);
      assert(result.code === 0 || result.code === 3, result.stderr);
      const results = lastToolResults(mock);
      assertEquals(results.length, 5);
      for (const denied of results.slice(0, 4)) assertStringIncludes(denied.content, "Error");
      await assertNoMarkers(sandbox.workspace, ["pwned-alias", "pwned-fsmonitor"]);
      assert(await exists(path.join(sandbox.workspace, "control-ran")), results[4].content);
    });
  },
});
