/**
 * Scripted tool calls: the floor of every scripted call, `skiff tool read` of
 * a 1-line file, as a ratio to a plain `deno run` of an empty file (no flags,
 * and run where no config is found: the floor a user compares with;
 * interleaved, medians; its bar in docs/performance.md), phase by phase; and the
 * long-lived mode, JSON Lines on stdin to one process: the time per call over
 * 200 calls (a 201-call process against a 1-call one), beside what the read
 * itself costs in this process. Run: deno run -A --unstable-worker-options scripts/bench_tool.ts
 *
 * SKIFF_BENCH_BEFORE=<another tree>/main.ts measures instead the long-lived
 * mode's time per call of that tree and this one, interleaved round by round
 * (SKIFF_BENCH_ROUNDS rounds, SKIFF_BENCH_CALLS calls), with the paired
 * differences and the load average.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeFlags } from "./compile.ts";
import { emptyScript, phaseLine, timePhases } from "./bench.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** SKIFF_BENCH_MAIN: another tree's main.ts, to measure a before and an after in one sitting. */
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeWithStdin(
  args: string[],
  env: Record<string, string>,
  input: string,
  program = Deno.execPath(),
) {
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const output = await child.output();
  const ms = performance.now() - started;
  const lines = new TextDecoder().decode(output.stdout).split("\n").filter(Boolean);
  if (!output.success || lines.some((line) => !JSON.parse(line).ok)) {
    throw new Error(`skiff tool failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return ms;
}

/**
 * Like `timeWithStdin`, under /usr/bin/time: the wall time and the CPU time
 * (user + system, every thread) of the process, which the machine's other
 * work disturbs less than the wall time.
 */
async function cpuWithStdin(args: string[], env: Record<string, string>, input: string) {
  const report = await Deno.makeTempFile();
  try {
    const timed = ["-f", "%U %S", "-o", report, Deno.execPath(), ...args];
    const wall = await timeWithStdin(timed, env, input, "/usr/bin/time");
    const last = (await Deno.readTextFile(report)).trim().split("\n").at(-1)!;
    const [user, system] = last.split(" ").map(Number);
    return { wall, cpu: (user + system) * 1000 };
  } finally {
    await Deno.remove(report);
  }
}

/**
 * Calls alternate between two files: three identical calls in a row meet the
 * doom-loop rule (docs/permissions.md), which a script would not repeat.
 */
function calls(count: number): string {
  return Array.from(
    { length: count },
    (_, index) =>
      JSON.stringify({ tool: "read", input: { file_path: index % 2 ? "two.txt" : "one.txt" } }),
  ).join("\n") + "\n";
}

/** What the read itself costs, without skiff: a stat and a read of the same file. */
async function bareRead(file: string, count = 200): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    await Deno.stat(file);
    await Deno.readTextFile(file);
  }
  return (performance.now() - started) / count;
}

export async function benchTool(rounds = 9, many = 200): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-tool-" });
  const workspace = path.join(dir, "work");
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(path.join(workspace, "one.txt"), "hello\n");
  await Deno.writeTextFile(path.join(workspace, "two.txt"), "world\n");
  const empty = await emptyScript(dir);
  const env = {
    ...Deno.env.toObject(),
    SKIFF_DATA_DIR: path.join(dir, "data"),
    SKIFF_CONFIG_DIR: path.join(dir, "config"),
  };
  const tool = ["run", ...flags, MAIN, "tool", "--dir", workspace];
  try {
    const floor: number[] = [];
    const baseline: number[] = [];
    const phases: Record<string, number>[] = [];
    const sourceFloor: number[] = [];
    const one: number[] = [];
    const lots: number[] = [];
    const emptyRun = async () => {
      const started = performance.now();
      await new Deno.Command(Deno.execPath(), { args: ["run", empty], cwd: dir }).output();
      return performance.now() - started;
    };
    for (let round = 0; round <= rounds; round++) {
      const single = await timePhases([...tool, "read", '{"file_path":"one.txt"}'], env);
      const bare = await emptyRun();
      const fromSources = await timePhases(
        [...tool, "read", '{"file_path":"one.txt"}'],
        { ...env, SKIFF_BUNDLE: "0" },
      );
      const oneCall = await timeWithStdin(tool, env, calls(1));
      const manyCalls = await timeWithStdin(tool, env, calls(many + 1));
      if (round === 0) continue; // warm-up
      floor.push(single.ms);
      phases.push(single.phases);
      sourceFloor.push(fromSources.ms);
      baseline.push(bare);
      one.push(oneCall);
      lots.push(manyCalls);
    }
    const ratio = median(floor) / median(baseline);
    const perCall = (median(lots) - median(one)) / many;
    const read = await bareRead(path.join(workspace, "one.txt"));
    return [
      `tool floor: skiff tool read (1-line file) ${median(floor).toFixed(0)} ms, empty deno run ${
        median(baseline).toFixed(0)
      } ms: ratio ${ratio.toFixed(2)}× (target ≤ 4×) ${ratio <= 4 ? "OK" : "OVER"}`,
      phaseLine(phases, median(baseline)),
      `  from the sources, not the bundle (SKIFF_BUNDLE=0): ${median(sourceFloor).toFixed(0)} ms, ${
        (median(sourceFloor) / median(baseline)).toFixed(2)
      }×`,
      `long-lived: ${many} calls on one process (JSON Lines on stdin): ${
        perCall.toFixed(2)
      } ms per call (the read itself, stat + read in this process: ${read.toFixed(2)} ms)`,
    ];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Time per call of the long-lived mode for each `main.ts`, interleaved; medians and paired differences. */
export async function benchPerCall(
  mains: { name: string; main: string }[],
  rounds = 7,
  many = 1000,
): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-percall-" });
  const workspace = path.join(dir, "work");
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(path.join(workspace, "one.txt"), "hello\n");
  await Deno.writeTextFile(path.join(workspace, "two.txt"), "world\n");
  const env = {
    ...Deno.env.toObject(),
    SKIFF_DATA_DIR: path.join(dir, "data"),
    SKIFF_CONFIG_DIR: path.join(dir, "config"),
  };
  const perCall: number[][] = mains.map(() => []);
  const cpuPerCall: number[][] = mains.map(() => []);
  const loads: string[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      loads.push((await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0]);
      for (const [index, { main }] of mains.entries()) {
        const tool = ["run", ...flags, main, "tool", "--dir", workspace];
        const one = await cpuWithStdin(tool, env, calls(1));
        const lots = await cpuWithStdin(tool, env, calls(many + 1));
        if (round === 0) continue; // warm-up
        perCall[index].push((lots.wall - one.wall) / many);
        cpuPerCall[index].push((lots.cpu - one.cpu) / many);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const read = await (async () => {
    const file = await Deno.makeTempFile();
    await Deno.writeTextFile(file, "hello\n");
    try {
      return await bareRead(file, 2000);
    } finally {
      await Deno.remove(file);
    }
  })();
  const lines: string[] = [];
  for (const [label, figures] of [["wall", perCall], ["CPU", cpuPerCall]] as const) {
    for (const [index, { name }] of mains.entries()) {
      const rounds = figures[index].map((ms) => ms.toFixed(2)).join(", ");
      lines.push(`${label}, ${name}: ${median(figures[index]).toFixed(3)} ms per call (${rounds})`);
    }
    for (let index = 1; index < mains.length; index++) {
      const paired = figures[index].map((ms, round) => ms - figures[0][round]);
      const ratio = median(figures[index]) / median(figures[0]);
      lines.push(
        `${label}, ${mains[index].name} − ${mains[0].name}: median ${
          median(paired).toFixed(3)
        } ms per call, ratio of medians ${ratio.toFixed(2)} (paired: ${
          paired.map((ms) => ms.toFixed(2)).join(", ")
        })`,
      );
    }
  }
  lines.push(
    `${rounds} rounds × ${many} calls, load average (1 min) per round: ${
      loads.join(" ")
    }; the read itself (stat + read): ${read.toFixed(3)} ms`,
  );
  return lines;
}

if (import.meta.main) {
  const before = Deno.env.get("SKIFF_BENCH_BEFORE");
  const lines = before
    ? await benchPerCall(
      [{ name: "before", main: before }, { name: "after", main: MAIN }],
      Number(Deno.env.get("SKIFF_BENCH_ROUNDS") ?? 7),
      Number(Deno.env.get("SKIFF_BENCH_CALLS") ?? 1000),
    )
    : await benchTool();
  for (const line of lines) console.log(line);
}
