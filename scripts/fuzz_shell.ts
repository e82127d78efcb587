/**
 * The long run of the bash rule table's differential fuzzer
 * (tests/support/shell_fuzz.ts): generated shell lines, judged by skiff's
 * policy under narrow rules, each allowed one run in real bash inside
 * bubblewrap; a finding is a line where bash ran a program the parser did
 * not report. Prints each finding with the command that runs it again, and
 * exits 1 when there was one.
 *
 * Run: deno task fuzz [--cases N] [--seed S] [--only I,J,…]
 * The seed defaults to the clock's; it is printed first, so any run can be repeated.
 */
import { describeFinding, fuzzShell } from "../tests/support/shell_fuzz.ts";
import { fuzzLine } from "../tests/support/shell_fuzz_lines.ts";
import { analyzeCommand, ensureShellParser } from "../src/permission/shell/bash_split.ts";

function option(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at < 0 ? undefined : Deno.args[at + 1];
}

function integer(name: string, fallback: number): number {
  const text = option(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`fuzz: ${name} takes a whole number, not '${text}'; e.g. ${name} 10000`);
    Deno.exit(2);
  }
  return value;
}

const seed = integer("--seed", Date.now() % 2 ** 31);
const cases = integer("--cases", 20000);
const only = option("--only")?.split(",").map(Number);
console.log(`fuzz: seed ${seed}, ${only ? `cases ${only.join(",")}` : `${cases} cases`}`);
if (only) {
  await ensureShellParser();
  for (const index of only) {
    const line = fuzzLine(seed, index);
    const { commands, unsure } = analyzeCommand(line);
    console.log(`  case ${index}: ${JSON.stringify(line)}`);
    console.log(`    the parser reports ${JSON.stringify(commands)}`);
    for (const reason of unsure) console.log(`    and is unsure: ${reason}`);
  }
}
const report = await fuzzShell({
  seed,
  cases,
  only,
  progress: (done, report) =>
    console.log(
      `  ${done} cases, ${report.allowed} allowed and run in bash, ${report.findings.length} findings, ${
        (report.milliseconds / 1000).toFixed(0)
      } s`,
    ),
});
for (const finding of report.findings) console.log(`\n${describeFinding(finding)}`);
console.log(
  `\nfuzz: seed ${seed}: ${report.cases} cases, ${report.allowed} run in bash, ${report.findings.length} findings in ${
    (report.milliseconds / 1000).toFixed(1)
  } s`,
);
if (report.findings.length) Deno.exit(1);
