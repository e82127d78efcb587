/**
 * `deno task bench`: start-up and one-shot figures, measured in one run so
 * a noisy machine shows up in both sides of each ratio.
 * - `skiff --version` against an empty `deno run`;
 * - one-shot `skiff run` against the mock endpoint, as a ratio to an empty
 *   `deno run` and phase by phase;
 * - then the edit and search benchmarks of the tool suite;
 * - the time a language server adds to an edit, first and warm (scripts/bench_lsp.ts);
 * - a scripted 300-turn session in a 32k window (scripts/bench_long_session.ts):
 *   per-turn overhead first and last 50 turns, peak RSS, largest request.
 * Each figure is printed beside its bar (docs/performance.md lists them).
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { runtimeFlags } from "./compile.ts";
import { WORKER_MARK } from "../src/boot/timings.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** SKIFF_BENCH_MAIN: another tree's main.ts, to measure a before and an after in one sitting. */
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");

async function timeOnce(args: string[], env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (!output.success) {
    throw new Error(`deno ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return elapsed;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A temporary folder holding `work`: a git repository (nothing committed) with one file, `a.txt`. */
export async function gitWorkspace(prefix: string): Promise<{ dir: string; workspace: string }> {
  const dir = await Deno.makeTempDir({ prefix });
  const workspace = path.join(dir, "work");
  await Deno.mkdir(workspace);
  const init = await new Deno.Command("git", { args: ["init", "-q", workspace] }).output();
  if (!init.success) throw new Error("git init failed: is git installed?");
  await Deno.writeTextFile(path.join(workspace, "a.txt"), "a\n");
  return { dir, workspace };
}

/** Alternate the two commands so background noise hits both alike. */
async function compare(a: () => Promise<number>, b: () => Promise<number>, rounds: number) {
  const first: number[] = [];
  const second: number[] = [];
  await a();
  await b();
  for (let round = 0; round < rounds; round++) {
    first.push(await a());
    second.push(await b());
  }
  return { a: median(first), b: median(second) };
}

export async function benchStartup(rounds = 11): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-" });
  const empty = path.join(dir, "empty.ts");
  await Deno.writeTextFile(empty, "");
  try {
    const { a: version, b: baseline } = await compare(
      () => timeOnce(["run", ...flags, MAIN, "--version"]),
      () => timeOnce(["run", ...flags, empty]),
      rounds,
    );
    const ratio = version / baseline;
    return [
      `startup: skiff --version ${version.toFixed(0)} ms, empty deno run ${
        baseline.toFixed(0)
      } ms, ratio ${ratio.toFixed(2)}× (target ≤ 1.5×) ${ratio <= 1.5 ? "OK" : "OVER"}`,
    ];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The start-up phases a `SKIFF_TIMINGS=1` run printed on stderr (src/boot/timings.ts). */
export function parseTimings(stderr: string): Record<string, number> {
  const line = stderr.split("\n").find((text) => text.startsWith("skiff timings: "));
  if (!line) return {};
  return Object.fromEntries(
    line.slice("skiff timings: ".length).split(" ").map((pair) => {
      const [name, value] = pair.split("=");
      return [name, Number(value)];
    }),
  );
}

/** Runs one process; its wall time and the phases it printed with SKIFF_TIMINGS=1. */
export async function timePhases(
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; phases: Record<string, number> }> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    env: { ...env, SKIFF_TIMINGS: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  const stderr = new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`deno ${args.join(" ")} failed: ${stderr}`);
  return { ms, phases: parseTimings(stderr) };
}

/**
 * Each of the terminal side's phases' median length (from the previous
 * mark), in the order marked; `runtime` is the empty `deno run`'s whole
 * time, which the first mark includes. Then the Worker's marks, each as its
 * median time since the runtime's start: the two threads run side by side,
 * so a Worker mark is compared with the terminal side's, not subtracted.
 */
export function phaseLine(runs: Record<string, number>[], emptyMs: number): string {
  const all = Object.keys(runs[0] ?? {});
  const names = all.filter((name) => !name.startsWith(WORKER_MARK));
  const workerNames = all.filter((name) => name.startsWith(WORKER_MARK));
  const parts = [`runtime ~${emptyMs.toFixed(0)}`];
  names.forEach((name, index) => {
    const lengths = runs.map((phases) => phases[name] - (index ? phases[names[index - 1]] : 0));
    parts.push(`${name} ${median(lengths).toFixed(0)}`);
  });
  const worker = workerNames.map((name) =>
    `${name.slice(WORKER_MARK.length)} ${median(runs.map((phases) => phases[name])).toFixed(0)}`
  );
  return `  phases (ms, median; each from the previous mark): ${parts.join(", ")}` +
    (worker.length
      ? `\n  the Worker's marks (ms since the start, median): ${worker.join(", ")}`
      : "");
}

export async function emptyScript(dir: string): Promise<string> {
  const empty = path.join(dir, "empty.ts");
  await Deno.writeTextFile(empty, "");
  return empty;
}

/**
 * One-shot `skiff run` (prompt → answer → exit) against the mock, interleaved
 * with an empty `deno run` of the same flags and with the same run without
 * the engine Worker started at process start (SKIFF_PREWARM=0, see
 * src/boot/prewarm.ts).
 */
export async function benchOneShot(rounds = 9): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-" });
  const empty = await emptyScript(dir);
  const mock = startMockServer(Array.from({ length: 3 * rounds + 6 }, () => ({ text: "ok" })));
  const env = mockRunEnv(dir, mock.url);
  try {
    const phases: Record<string, number>[] = [];
    const args = ["run", ...flags, MAIN, "run", "--dir", dir, "hi"];
    const run = async () => {
      const result = await timePhases(args, env);
      phases.push(result.phases);
      return result.ms;
    };
    const cold = async () => (await timePhases(args, { ...env, SKIFF_PREWARM: "0" })).ms;
    const sources = async () => (await timePhases(args, { ...env, SKIFF_BUNDLE: "0" })).ms;
    const [value, without, fromSources, baseline] = await interleave(
      [run, cold, sources, () => timeOnce(["run", ...flags, empty])],
      rounds,
    );
    const over = value - baseline;
    return [
      `one-shot: skiff run against the mock ${value.toFixed(0)} ms, empty deno run ${
        baseline.toFixed(0)
      } ms: ratio ${(value / baseline).toFixed(2)}×, +${over.toFixed(0)} ms (target ≤ +250 ms) ${
        over <= 250 ? "OK" : "OVER"
      }`,
      `  without the pre-started engine Worker (SKIFF_PREWARM=0): ${without.toFixed(0)} ms, +${
        (without - baseline).toFixed(0)
      } ms`,
      `  from the sources, not the bundle (SKIFF_BUNDLE=0): ${fromSources.toFixed(0)} ms, +${
        (fromSources - baseline).toFixed(0)
      } ms`,
      phaseLine(phases.slice(1), baseline),
    ];
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The environment of a bench's `skiff run` against the mock at `url`, its data and config under `dir`. */
export function mockRunEnv(dir: string, url: string): Record<string, string> {
  return {
    ...Deno.env.toObject(),
    OPENAI_BASE_URL: url,
    SKIFF_MODEL: "mock-model",
    SKIFF_DATA_DIR: path.join(dir, "data"),
    SKIFF_CONFIG_DIR: path.join(dir, "config"),
  };
}

/** Like `compare`, for any number of commands: one warm-up each, then round by round; medians. */
export async function interleave(
  commands: (() => Promise<number>)[],
  rounds: number,
): Promise<number[]> {
  const times: number[][] = commands.map(() => []);
  for (const command of commands) await command();
  for (let round = 0; round < rounds; round++) {
    for (const [index, command] of commands.entries()) times[index].push(await command());
  }
  return times.map(median);
}

/**
 * Builds the engine's bundle of the tree measured (`deno task build`), as
 * the binary ships it; a tree without scripts/build.ts runs its sources.
 */
export async function buildMeasuredTree(): Promise<string[]> {
  const build = path.join(path.dirname(MAIN), "scripts", "build.ts");
  if (!(await Deno.stat(build).catch(() => undefined))) return [`no ${build}: sources only`];
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", build],
    cwd: path.dirname(MAIN),
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(output.stderr).trim();
  if (!output.success) throw new Error(said);
  return [said];
}

/**
 * Every section in turn. Not awaited at the module's top level: the sections
 * that import this module's helpers (bench_tool.ts, bench_one_shot_git.ts)
 * would wait for its evaluation to end, which such an await never lets
 * happen ("Top-level await promise never resolved").
 */
async function benchAll(): Promise<void> {
  const sections: [string, () => Promise<string[]>][] = [
    ["engine bundle", () => buildMeasuredTree()],
    ["start-up", () => benchStartup()],
    ["one-shot run", () => benchOneShot()],
    ["one-shot, git", async () => (await import("./bench_one_shot_git.ts")).benchOneShotGit()],
    ["worker boot", async () => (await import("./bench_worker_boot.ts")).benchWorkerBoot()],
    ["scripted tool calls", async () => (await import("./bench_tool.ts")).benchTool()],
    ["sandboxed commands", async () => (await import("./bench_sandbox.ts")).benchSandbox()],
    ["first bash call", async () => (await import("./bench_first_bash.ts")).benchFirstBash()],
    ["edit", async () => (await import("./bench_edit.ts")).benchEdit()],
    ["search", async () => (await import("./bench_search.ts")).benchSearch()],
    ["diagnostics after an edit", async () => (await import("./bench_lsp.ts")).benchLsp()],
    ["long session", async () => (await import("./bench_long_session.ts")).benchLongSession()],
    ["per turn and memory", async () => (await import("./bench_turns.ts")).benchTurns()],
    ["chat", async () => (await import("./bench_chat.ts")).benchChat()],
    ["batch", async () => (await import("./bench_batch.ts")).benchBatch()],
  ];
  for (const [name, run] of sections) {
    console.log(`== ${name}`);
    try {
      for (const line of await run()) console.log(line);
    } catch (error) {
      console.log(`FAILED: ${(error as Error).message}`);
    }
  }
}

if (import.meta.main) void benchAll();
