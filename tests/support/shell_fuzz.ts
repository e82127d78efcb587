/**
 * The differential fuzzer of the bash rule table: it asks skiff's own
 * policy (src/permission/evaluate.ts, under narrow rules) about generated lines
 * (shell_fuzz_lines.ts), runs every line the policy would allow without a
 * question in real bash, inside skiff's own bubblewrap sandbox, and reports
 * each line where bash ran a program the parser did not report. Programs
 * are seen by a PATH of logging stand-ins and by bash's
 * `command_not_found_handle` (any other name bash tries to run); `BASH_ENV`
 * also turns on `set -x` into a trace kept for the report. Used by
 * tests/permission/shell_fuzz_test.ts (bounded, in CI) and scripts/fuzz_shell.ts
 * (`deno task fuzz`, long runs).
 */
import * as path from "node:path";
import { builtinAgents } from "../../src/definitions/agents/builtin.ts";
import {
  analyzeCommand,
  ensureShellParser,
  shellWords,
} from "../../src/permission/shell/bash_split.ts";
import { evaluate } from "../../src/permission/evaluate.ts";
import { flagsLayer } from "../../src/permission/flags.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import type { RuleLayer } from "../../src/permission/rules.ts";
import { bwrapLauncher } from "../../src/sandbox/bwrap/bwrap.ts";
import { fuzzLine, HIDDEN_PROGRAMS, VISIBLE_PROGRAMS } from "./shell_fuzz_lines.ts";

/** Where the policy believes the lines run (a path rule needs one; no line names it). */
const WORKSPACE = "/var/tmp/skiff-fuzz-workspace";

/** The narrow rule sets a line is judged under; it runs when any of them allows it. */
function ruleSets(): { name: string; layers: RuleLayer[] }[] {
  const plan = builtinAgents().find((agent) => agent.name === "plan")!;
  return [
    {
      name: "--allow 'bash(git status*)' --allow 'bash(echo *)'",
      layers: buildLayers({ flags: flagsLayer({ allow: ["bash(git status*)", "bash(echo *)"] }) }),
    },
    {
      name: "--allow 'bash(npm test*)' --allow 'bash(cat *)'",
      layers: buildLayers({ flags: flagsLayer({ allow: ["bash(npm test*)", "bash(cat *)"] }) }),
    },
    {
      name: "--allow 'bash(printf *)' --allow 'bash(test *)' --allow 'bash(read *)'",
      layers: buildLayers({
        flags: flagsLayer({ allow: ["bash(printf *)", "bash(test *)", "bash(read *)"] }),
      }),
    },
    { name: "the plan agent's rules", layers: buildLayers({ agent: plan.permission }) },
  ];
}

export interface FuzzFinding {
  seed: number;
  index: number;
  line: string;
  /** The rule set that allowed the line. */
  allowedBy: string;
  /** What the parser reported: the commands a rule approved. */
  reported: string[];
  /** The programs bash ran (or tried to) that no reported command names. */
  unreported: string[];
  /** bash's `set -x` trace and errors for the line. */
  trace: string;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  /** Lines some narrow rule set allowed: each was run in bash. */
  allowed: number;
  findings: FuzzFinding[];
  milliseconds: number;
}

export interface FuzzOptions {
  seed: number;
  cases: number;
  /** Case numbers to run; @default 0 … cases-1 */
  only?: number[];
  /** Path of bubblewrap. @default "bwrap" */
  bwrapPath?: string;
  /** Lines per sandbox start. @default 400 */
  batch?: number;
  /** Called after each batch. */
  progress?: (done: number, report: FuzzReport) => void;
}

/** The program each reported command runs, after its assignments. */
function programsOf(commands: string[]): Set<string> {
  const programs = new Set<string>();
  for (const command of commands) {
    const words = shellWords(command).filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    if (words[0]) programs.add(words[0].split("/").pop()!);
  }
  return programs;
}

const STAND_IN = `#!/bin/sh
printf '%s\\n' "\${0##*/}" >> "$FUZZ_LOG"
`;
const SHELL_STAND_IN = `${STAND_IN}exec /bin/bash "$@"\n`;
/** Read by every bash the line starts (BASH_ENV): the variables lines use, the logging, the trace. */
const BASH_ENV = `y=yes
arr=(a b)
z='arr[$(h9)]'
command_not_found_handle() { printf '%s\\n' "$1" >> "$FUZZ_LOG"; return 127; }
exec 9>>"$FUZZ_TRACE"
BASH_XTRACEFD=9
set -x
`;
/** Runs each case file in a fresh folder of the sandbox's private /tmp, 2 s at most. */
const DRIVER = `ws=$PWD
for file in "$ws"/cases/*; do
  n=\${file##*/}
  mkdir -p /tmp/w/$n && cd /tmp/w/$n || exit 1
  line=$(cat "$file"; printf x)
  line=\${line%x}
  : > "$ws/logs/$n.ran"
  /usr/bin/env -i PATH="$ws/bin" BASH_ENV="$ws/env.sh" HOME=/tmp/w/$n \\
    FUZZ_LOG="$ws/logs/$n.ran" FUZZ_TRACE="$ws/logs/$n.trace" \\
    /usr/bin/timeout -s KILL 2 /bin/bash -c "$line" </dev/null >/dev/null 2>>"$ws/logs/$n.trace"
  cd "$ws"
done
echo fuzz-driver-done
`;

async function writeHarness(root: string): Promise<void> {
  for (const dir of ["bin", "cases", "logs"]) await Deno.mkdir(path.join(root, dir));
  for (const name of [...HIDDEN_PROGRAMS, ...VISIBLE_PROGRAMS, "sh", "bash"]) {
    const file = path.join(root, "bin", name);
    await Deno.writeTextFile(file, name === "sh" || name === "bash" ? SHELL_STAND_IN : STAND_IN);
    await Deno.chmod(file, 0o755);
  }
  await Deno.writeTextFile(path.join(root, "env.sh"), BASH_ENV);
  await Deno.writeTextFile(path.join(root, "driver.sh"), DRIVER);
}

/** What one line did in bash: the programs it ran (or tried to), in order, and its trace. */
export interface BashRun {
  ran: string[];
  trace: string;
}

/** Runs lines in bash inside skiff's bubblewrap sandbox, many per sandbox start. */
export type BashRunner = (lines: Map<number, string>) => Promise<Map<number, BashRun>>;

/**
 * Gives `work` a runner of lines in real bash, inside skiff's own bubblewrap
 * sandbox (workspace-write on a temp folder, no network, a private /tmp),
 * with the logging stand-ins on PATH; removes the temp folder afterwards.
 */
export async function withBashRunner<T>(
  bwrapPath: string,
  work: (run: BashRunner) => Promise<T>,
): Promise<T> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "skiff-fuzz-" }),
  );
  try {
    await writeHarness(root);
    return await work((lines) => runInBash(root, lines, bwrapPath));
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

async function runInBash(
  root: string,
  lines: Map<number, string>,
  bwrapPath: string,
): Promise<Map<number, BashRun>> {
  for (const dir of ["cases", "logs"]) {
    await Deno.remove(path.join(root, dir), { recursive: true });
    await Deno.mkdir(path.join(root, dir));
  }
  const name = (index: number) => String(index).padStart(9, "0");
  for (const [index, line] of lines) {
    await Deno.writeTextFile(path.join(root, "cases", name(index)), line);
  }
  const launcher = bwrapLauncher(
    { mode: "workspace-write", workspace: root, addDirs: [], network: false, envNames: [] },
    { bwrapPath, shell: "/bin/bash" },
  );
  const { argv, env } = await launcher.prepare("/bin/bash ./driver.sh", root);
  const output = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!stdout.includes("fuzz-driver-done")) {
    throw new Error(
      `the fuzz driver did not finish in the sandbox (exit ${output.code}): ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  const results = new Map<number, BashRun>();
  for (const index of lines.keys()) {
    const read = (suffix: string) =>
      Deno.readTextFile(path.join(root, "logs", name(index) + suffix)).catch(() => "");
    const ran = (await read(".ran")).split("\n").filter(Boolean);
    results.set(index, { ran, trace: await read(".trace") });
  }
  return results;
}

/** The programs bash ran that no command of `reported` runs. */
export function unreportedPrograms(run: BashRun, reported: string[]): string[] {
  const programs = programsOf(reported);
  return [...new Set(run.ran.filter((program) => !programs.has(program)))];
}

/** Judges and runs the cases of one seed; see the module comment. Needs bubblewrap. */
export async function fuzzShell(options: FuzzOptions): Promise<FuzzReport> {
  await ensureShellParser();
  const started = performance.now();
  const report: FuzzReport = {
    seed: options.seed,
    cases: 0,
    allowed: 0,
    findings: [],
    milliseconds: 0,
  };
  await withBashRunner(options.bwrapPath ?? "bwrap", async (run) => {
    const sets = ruleSets();
    const indexes = options.only ?? Array.from({ length: options.cases }, (_, index) => index);
    const batch = options.batch ?? 400;
    for (let from = 0; from < indexes.length; from += batch) {
      const allowed = new Map<number, { line: string; by: string; reported: string[] }>();
      for (const index of indexes.slice(from, from + batch)) {
        const line = fuzzLine(options.seed, index);
        report.cases++;
        const analysis = analyzeCommand(line);
        // What the parser is unsure of is asked under every narrow rule: judged only to save time.
        if (analysis.unsure.length) continue;
        const access = { key: "bash", patterns: [line], commands: [line] };
        const by = sets.find((set) =>
          evaluate(access, { layers: set.layers, workspace: WORKSPACE }).action === "allow"
        );
        if (by) allowed.set(index, { line, by: by.name, reported: analysis.commands });
      }
      report.allowed += allowed.size;
      const lines = new Map([...allowed].map(([index, { line }]) => [index, line]));
      const runs = lines.size ? await run(lines) : new Map<number, BashRun>();
      for (const [index, result] of runs) {
        const { line, by, reported } = allowed.get(index)!;
        const unreported = unreportedPrograms(result, reported);
        if (!unreported.length) continue;
        report.findings.push({
          seed: options.seed,
          index,
          line,
          allowedBy: by,
          reported,
          unreported,
          trace: result.trace,
        });
      }
      report.milliseconds = Math.round(performance.now() - started);
      options.progress?.(Math.min(from + batch, indexes.length), report);
    }
  });
  return report;
}

/** A finding as a person reads it, with the command that runs it again. */
export function describeFinding(finding: FuzzFinding): string {
  return [
    `line ${JSON.stringify(finding.line)}`,
    `  allowed by ${finding.allowedBy}; the parser reported ${JSON.stringify(finding.reported)}`,
    `  bash ran, unreported: ${finding.unreported.join(", ")}`,
    `  again: deno task fuzz --seed ${finding.seed} --only ${finding.index}`,
    `  trace:\n${finding.trace.split("\n").slice(0, 12).map((line) => `    ${line}`).join("\n")}`,
  ].join("\n");
}
