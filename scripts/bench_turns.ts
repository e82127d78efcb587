/**
 * The per-turn bench (`deno task bench` runs it): a scripted
 * 100-turn session through `skiff run` against the mock, each turn a `read`
 * of its own ~20 KB file, in a window large enough that nothing is compacted,
 * so the history grows to ~2 MB. Reports skiff's own overhead per turn
 * (medians of the first and last 10 turns) and the peak RSS of the process.
 *
 * A turn's overhead is the time from the mock's answer to one request (when
 * it has read that request and starts streaming its short answer) to the
 * arrival of the next request (its headers, before the mock reads its body).
 * The mock's own work on a request (reading its ~2 MB of JSON) is outside
 * that span, and its token count is replaced by a cheap one, so the span is
 * skiff's: reading the answer, running the tool, storing, measuring the
 * context, and building the next request's JSON and starting to send it.
 * The mean of all turns is reported too: a cost paid on a few turns only
 * (a garbage collection, lib/collect.ts) shows there, not in a median;
 * and the CPU time of the skiff process (user + system, all its threads).
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type MockTurn, startMockServer } from "../tests/support/mock_server.ts";
import { makeSandbox } from "../tests/support/cli.ts";
import { runtimeFlags } from "./compile.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** SKIFF_BENCH_MAIN: another tree's main.ts, to measure a before and an after in one sitting. */
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");
const RSS_TARGET_MB = 130;
const FILE_BYTES = 20_000;
const TASK = "Read every file under data/, one a turn.";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The process's peak resident set so far (VmHWM), in MB; 0 once it is gone. */
function peakRssMb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** User and system seconds of this process's children that have been waited for (cutime, cstime). */
export function childCpuSeconds(): { user: number; system: number } {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 of proc(5), counted from the state (field 3) here; clock ticks of 1/100 s.
  return { user: Number(fields[13]) / 100, system: Number(fields[14]) / 100 };
}

/** The CPU a child used between two readings of `childCpuSeconds`. */
export function cpuBetween(
  before: { user: number; system: number },
  after: { user: number; system: number },
): { user: number; system: number; total: number } {
  const user = after.user - before.user;
  const system = after.system - before.system;
  return { user, system, total: user + system };
}

/** One file a turn, each different, so no read is answered from anything cached. */
async function writeFiles(workspace: string, turns: number): Promise<void> {
  await Deno.mkdir(path.join(workspace, "data"), { recursive: true });
  for (let file = 0; file < turns; file++) {
    const lines: string[] = [];
    for (let line = 0; lines.join("\n").length < FILE_BYTES; line++) {
      lines.push(
        `file ${file} line ${line}: "status": ok, {"latency_ms": ${line % 97}} `.padEnd(99),
      );
    }
    await Deno.writeTextFile(path.join(workspace, "data", `f_${file}.txt`), lines.join("\n"));
  }
}

/** About four characters a token, from the messages' lengths (the mock's own count stringifies all). */
function cheapUsage(body: Record<string, unknown>) {
  const messages = body.messages as { content?: string | null }[];
  const chars = messages.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
  return { prompt_tokens: Math.ceil(chars / 4), completion_tokens: 10 };
}

export interface TurnFigures {
  first: number;
  /** Mean overhead of all turns, ms. */
  mean: number;
  last: number;
  peakMb: number;
  seconds: number;
  /** User + system CPU of the skiff process, every thread, s. */
  cpu: { user: number; system: number; total: number };
  largestKb: number;
}

/** Runs the session once; `extraFlags` go to `deno run` (a V8 flag to try). */
export async function measureTurns(turns = 100, extraFlags: string[] = []): Promise<TurnFigures> {
  const arrivals: number[] = [];
  const answers: number[] = [];
  let largestChars = 0;
  const respond = (body: Record<string, unknown>): MockTurn => {
    const index = answers.length;
    answers.push(performance.now());
    // The mock keeps every body; 100 of up to 2 MB would make this process's collector the figure.
    mock.requests.length = 0;
    mock.headers.length = 0;
    const usage = cheapUsage(body);
    largestChars = Math.max(largestChars, usage.prompt_tokens * 4);
    if (index + 1 >= turns) return { text: "Done.", usage };
    return {
      usage,
      text: "",
      toolCalls: [{
        name: "read",
        id: `call_${index}`,
        arguments: { file_path: `data/f_${index}.txt` },
      }],
    };
  };
  const mock = startMockServer([], { respond, onArrival: () => arrivals.push(performance.now()) });
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await writeFiles(sandbox.workspace, turns);
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      JSON.stringify({ models: { "mock-model": { context: 4_000_000, output: 4_096 } } }),
    );
    const started = performance.now();
    const cpuBefore = childCpuSeconds();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...(await runtimeFlags()), ...extraFlags, MAIN, "run", "--json", "-y", TASK],
      cwd: sandbox.workspace,
      env: sandbox.env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let peakMb = 0;
    const poll = setInterval(() => (peakMb = Math.max(peakMb, peakRssMb(child.pid))), 20);
    const output = await child.output();
    clearInterval(poll);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuBetween(cpuBefore, childCpuSeconds());
    if (output.code !== 0) {
      const stderr = new TextDecoder().decode(output.stderr).slice(-800);
      throw new Error(`skiff run ended with ${output.code}: ${stderr}`);
    }
    if (answers.length !== turns) {
      throw new Error(`expected ${turns} requests, the mock received ${answers.length}`);
    }
    const overheads = arrivals.slice(1).map((at, index) => at - answers[index]);
    return {
      first: median(overheads.slice(0, 10)),
      mean: overheads.reduce((sum, overhead) => sum + overhead, 0) / overheads.length,
      last: median(overheads.slice(-10)),
      peakMb,
      seconds,
      cpu,
      largestKb: largestChars / 1024,
    };
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

export async function benchTurns(turns = 100, extraFlags: string[] = []): Promise<string[]> {
  const figures = await measureTurns(turns, extraFlags);
  const ratio = figures.last / figures.first;
  return [
    `turns: ${turns} turns × ${FILE_BYTES / 1000} KB read in ${figures.seconds.toFixed(1)} s ` +
    `(${figures.cpu.total.toFixed(2)} s of CPU: user ${figures.cpu.user.toFixed(2)}, ` +
    `system ${figures.cpu.system.toFixed(2)}), ` +
    `the last request holding ${figures.largestKb.toFixed(0)} KB of messages`,
    `  skiff's own overhead per turn: first 10 median ${figures.first.toFixed(1)} ms, ` +
    `last 10 median ${figures.last.toFixed(1)} ms, ratio ${ratio.toFixed(2)}× ` +
    `${ratio <= 1.5 ? "OK (flat)" : "GROWING"}; mean of all ${figures.mean.toFixed(1)} ms`,
    `  peak RSS of the skiff process ${
      figures.peakMb.toFixed(0)
    } MB (target ≤ ${RSS_TARGET_MB} MB) ${figures.peakMb <= RSS_TARGET_MB ? "OK" : "OVER"}`,
  ];
}

if (import.meta.main) {
  // `deno run -A scripts/bench_turns.ts [turns] [flags for the skiff process, e.g. --v8-flags=…]`
  const [turns, ...flags] = Deno.args;
  for (const line of await benchTurns(Number(turns ?? 100), flags)) console.log(line);
}
