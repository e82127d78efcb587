/**
 * The differential fuzzer of the bash rule table, bounded for CI: a fixed
 * seed's generated lines (tests/support/shell_fuzz_lines.ts), each one the
 * policy allows under a narrow rule run in real bash inside bubblewrap with
 * logging stand-ins on PATH (tests/support/shell_fuzz.ts). A line where
 * bash ran a program the parser did not report fails the test, printed with
 * `deno task fuzz --seed S --only I` to run it again. The long run is
 * `deno task fuzz` (scripts/fuzz_shell.ts).
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  describeFinding,
  fuzzShell,
  unreportedPrograms,
  withBashRunner,
} from "../support/shell_fuzz.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";

/** Fixed, so a failure here is the same failure on every machine. */
const SEED = 29;
/** About 10 s on an idle two-core machine, 30 s on a busy one. */
const CASES = 4000;

const found = await probeSandboxes();
if (!found.bwrap) {
  console.warn(
    "\n!!! SHELL FUZZ: SKIPPED: bubblewrap is missing or cannot create namespaces here, so no " +
      "generated line is run in bash. Install it (apt-get install bubblewrap). !!!\n",
  );
}
const needsBwrap = { ignore: !found.bwrap };

Deno.test({
  name: "shell fuzz (control): bash's runs show a command hidden from the parser",
  ...needsBwrap,
  fn: async () => {
    // What the parser reported for these before they were fixed: one git status each.
    const lines = new Map([
      [0, "git status ${x:-`h1`}"],
      [1, 'git status "${HOME#$(h1)}"'],
      [2, "git status ${HOME^^`h1`}"],
      [3, "git status \\\r\nsh -c 'h1'"],
      [4, "git status a\n\\h1"],
    ]);
    const runs = await withBashRunner(found.bwrap!, (run) => run(lines));
    for (const [index, line] of lines) {
      const run = runs.get(index)!;
      assert(run.ran.includes("git"), `${JSON.stringify(line)}: git did not run: ${run.trace}`);
      assert(
        unreportedPrograms(run, [line]).includes("h1"),
        `${JSON.stringify(line)}: the hidden h1 was not seen: ${JSON.stringify(run.ran)}`,
      );
    }
  },
});

Deno.test({
  name: `shell fuzz: no generated line the policy allows runs an unreported program (seed ${SEED})`,
  ...needsBwrap,
  fn: async () => {
    const report = await fuzzShell({ seed: SEED, cases: CASES, bwrapPath: found.bwrap! });
    assertEquals(report.cases, CASES);
    // A generator whose lines are all asked about would prove nothing.
    assert(report.allowed >= CASES / 20, `only ${report.allowed} of ${CASES} lines were allowed`);
    assertEquals(report.findings.map(describeFinding), [], "bash ran what the parser missed");
  },
});
