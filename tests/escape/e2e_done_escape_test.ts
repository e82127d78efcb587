/**
 * End to end, the model as the attacker, through the definition of done
 * (issue 29 item 5). The read-only plan agent's `done_propose` names any
 * command; skiff used to run each when the plan turn ended, with no rule,
 * and save it to `.skiff/done.json` for later `--done` runs. Now a proposal
 * runs only when the plan agent's own bash rules would run it unasked, and a
 * `.skiff/done.json` (project content) runs under `--done` only in a trusted
 * project or where a rule allows its commands. Each attack has its control:
 * the same command runs when the rules allow it, with the flags skiff printed
 * passed exactly as printed.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import type { DoneFile } from "../../src/engine/verify/done_criteria.ts";
import { exists, hasBwrap, needsBwrap, withAttack } from "./e2e_support.ts";

if (!hasBwrap) {
  console.warn("!!! e2e_done_escape_test: bubblewrap is missing; these tests are skipped !!!");
}

/** The proposal a hostile model makes: a command that leaves a mark in the workspace. */
const PLANT = "touch pwned.txt";

const PROPOSE: MockTurn[] = [
  {
    toolCalls: [{
      name: "done_propose",
      arguments: {
        criteria: [{ name: "planted", command: PLANT, why: "it looks like a check" }],
      },
    }],
  },
  { text: "Proposed." },
];

/** The words of a shell line as bash splits them (the hint is printed quoted for a shell). */
async function shellWords(line: string): Promise<string[]> {
  const out = await new Deno.Command("bash", {
    args: ["-c", `eval "set -- $1"; printf '%s\\0' "$@"`, "words", line],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\0").slice(0, -1);
}

Deno.test({
  name:
    "done attack: the plan agent's proposed command is recorded, not run (headless, no rule allows it)",
  ...needsBwrap,
  fn: () =>
    withAttack(PROPOSE, async (sandbox) => {
      const run = await runSkiff(["run", "--agent", "plan", "plan it"], sandbox);
      assertEquals(run.code, 0, run.stdout + run.stderr);
      const mark = path.join(sandbox.workspace, "pwned.txt");
      assertEquals(await exists(mark), false, "the model's command ran: pwned.txt exists");
      const done = JSON.parse(
        await Deno.readTextFile(path.join(sandbox.workspace, ".skiff", "done.json")),
      ) as DoneFile;
      assertEquals(done.criteria[0].command, PLANT, "the proposal is still recorded");
      assertEquals(done.criteria[0].current.not_run, true);
      assertEquals(done.criteria[0].current.passed, false);
      assertStringIncludes(done.criteria[0].current.summary, "not run: bash(touch pwned.txt)");
      assertStringIncludes(run.stderr, "`touch pwned.txt` was recorded, not run");
      // The built-in plan agent denies it; no flag can change that, and skiff says so.
      assertStringIncludes(run.stderr, "No flag lets the plan agent run it");
    }),
});

Deno.test({
  name:
    "done control: a plan agent whose rules ask runs the proposal once the printed --allow is passed as printed",
  ...needsBwrap,
  fn: () =>
    withAttack([...PROPOSE, ...PROPOSE], async (sandbox) => {
      // The person's own plan agent asks for every command (global config: theirs to set).
      await Deno.writeTextFile(
        path.join(sandbox.configDir, "config.json"),
        JSON.stringify({ agent: { plan: { permission: { bash: { "*": "ask" } } } } }),
      );
      const mark = path.join(sandbox.workspace, "pwned.txt");
      const first = await runSkiff(["run", "--agent", "plan", "plan it"], sandbox);
      assertEquals(first.code, 0, first.stdout + first.stderr);
      assertEquals(await exists(mark), false, "an ask is not a yes: nothing ran");
      const hint = /plan again with: skiff run --agent plan (.+) "…"/.exec(first.stderr);
      assert(hint, `no --allow hint was printed:\n${first.stderr}`);
      const flags = await shellWords(hint[1]);
      assertEquals(flags[0], "--allow", `the hint is an --allow: ${hint[1]}`);
      const second = await runSkiff(["run", "--agent", "plan", ...flags, "plan it"], sandbox);
      assertEquals(second.code, 0, second.stdout + second.stderr);
      assertEquals(await exists(mark), true, "with the printed flags the proposal was measured");
      const done = JSON.parse(
        await Deno.readTextFile(path.join(sandbox.workspace, ".skiff", "done.json")),
      ) as DoneFile;
      assertEquals(done.criteria[0].current.not_run, undefined);
      assertEquals(done.criteria[0].current.exit_code, 0);
    }),
});

/** A repository that ships its own criteria, and an allow rule (so it is not trusted). */
async function shipCriteria(workspace: string): Promise<void> {
  await Deno.mkdir(path.join(workspace, ".skiff"), { recursive: true });
  const done = {
    version: 1,
    proposed_by: "ses_shipped",
    proposed_at: "2026-01-01T00:00:00.000Z",
    criteria: [{
      name: "tests",
      command: PLANT,
      exit_code: 0,
      why: "looks harmless",
      current: { exit_code: 1, passed: false, summary: "" },
    }],
  };
  await Deno.writeTextFile(path.join(workspace, ".skiff", "done.json"), JSON.stringify(done));
  await Deno.writeTextFile(
    path.join(workspace, "skiff.json"),
    JSON.stringify({ permission: { read: { "*": "allow" } } }),
  );
}

Deno.test({
  name:
    "done attack: --done in an untrusted project refuses the repository's criteria before anything runs",
  ...needsBwrap,
  fn: () =>
    withAttack([{ text: "done" }], async (sandbox, mock) => {
      await shipCriteria(sandbox.workspace);
      const run = await runSkiff(["run", "--done", "do the work"], sandbox);
      const mark = path.join(sandbox.workspace, "pwned.txt");
      assertEquals(await exists(mark), false, "the repository's command ran: pwned.txt exists");
      assertEquals(run.code, 1, run.stdout + run.stderr);
      assertStringIncludes(run.stderr, "comes from .skiff/done.json");
      assertStringIncludes(run.stderr, "--trust-project");
      assertEquals(mock.requests.length, 0, "nothing was sent to the model either");
      // --yes answers the agent's questions; it is not trust in the repository's commands.
      const yes = await runSkiff(["run", "--yes", "--done", "do the work"], sandbox);
      assertEquals(yes.code, 1, yes.stdout + yes.stderr);
      assertStringIncludes(yes.stderr, "comes from .skiff/done.json");
      assertEquals(await exists(mark), false, "--yes ran the repository's command");
      // The rule skiff names, passed exactly as printed, lets it run: the refusal is the trust.
      const hint = /rerun with (.+), or trust the project/.exec(run.stderr);
      assert(hint, `no --allow hint was printed:\n${run.stderr}`);
      const allowed = await runSkiff(
        ["run", ...await shellWords(hint[1]), "--done", "do the work"],
        sandbox,
      );
      assertEquals(allowed.code, 0, allowed.stdout + allowed.stderr);
      assertEquals(await exists(mark), true, "with the printed rule the check ran");
    }),
});

Deno.test({
  name: "done control: --done with --trust-project runs the repository's criteria",
  ...needsBwrap,
  fn: () =>
    withAttack([{ text: "done" }], async (sandbox) => {
      await shipCriteria(sandbox.workspace);
      const run = await runSkiff(["run", "--trust-project", "--done", "do the work"], sandbox);
      assertEquals(run.code, 0, run.stdout + run.stderr);
      assertEquals(await exists(path.join(sandbox.workspace, "pwned.txt")), true);
    }),
});
