/**
 * The batch bench (`deno task bench` runs it): `skiff batch`
 * with 200 small tasks at `-j 8` against the scripted mock (each task reads
 * its file, writes it, answers: three model turns), and, in the same run,
 * one `skiff run` of the same task as the baseline. Reports skiff's own
 * time per task in the batch (wall time minus the mock's own time, over the
 * task count) as a ratio to that one run (median of runs before and after
 * the batch), what a shell loop of 200 runs would take, the batch's peak
 * RSS, how much of a task's time its engine's start (its engine in a new or
 * kept Worker, store, session) takes, and the turns and tokens of a task.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { makeSandbox, type Sandbox } from "../tests/support/cli.ts";
import { writerTurn, writeTaskFile } from "../tests/support/batch_tasks.ts";
import { runtimeFlags } from "./compile.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** SKIFF_BENCH_MAIN: another tree's main.ts (as scripts/bench.ts reads it). */
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
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

/** A mock that answers every task at once and adds up the time it spends answering. */
function timedMock() {
  const busy = { ms: 0 };
  const mock = startMockServer([], {
    respond: (body) => {
      const started = performance.now();
      const turn = writerTurn(body);
      busy.ms += performance.now() - started;
      return turn;
    },
  });
  return { mock, busy };
}

interface Run {
  ms: number;
  peakMb: number;
  lines: { at: number; event: Record<string, unknown> }[];
}

/** Runs skiff in the sandbox; each stdout JSON line is kept with the time it arrived. */
async function runTimed(args: string[], sandbox: Sandbox, flags: string[]): Promise<Run> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, ...args],
    cwd: sandbox.workspace,
    env: sandbox.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let peakMb = 0;
  const poll = setInterval(() => (peakMb = Math.max(peakMb, peakRssMb(child.pid))), 25);
  const lines: Run["lines"] = [];
  const stderr = new Response(child.stderr).text();
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    const now = performance.now();
    const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = parts.pop()!;
    for (const line of parts) if (line.trim()) lines.push({ at: now, event: JSON.parse(line) });
  }
  const status = await child.status;
  clearInterval(poll);
  const ms = performance.now() - started;
  if (!status.success) {
    throw new Error(`skiff ${args[0]} ended with ${status.code}: ${(await stderr).slice(-800)}`);
  }
  return { ms, peakMb, lines };
}

/** Per task: from its start to its session's first event (the engine up), and to its end. */
function taskTimes(run: Run): { startMs: number[]; taskMs: number[] } {
  const startedAt = new Map<string, number>();
  const startMs: number[] = [];
  const taskMs: number[] = [];
  for (const { at, event } of run.lines) {
    const task = String(event.task);
    if (event.type === "batch.task.started") startedAt.set(task, at);
    else if (event.type === "session.started") startMs.push(at - startedAt.get(task)!);
    else if (event.type === "batch.task.completed") taskMs.push(at - startedAt.get(task)!);
  }
  return { startMs, taskMs };
}

export async function benchBatch(tasks = 200, jobs = 8, singleRounds = 3): Promise<string[]> {
  const flags = await runtimeFlags();
  const { mock, busy } = timedMock();
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    // The baseline: `skiff run` of one such task, a fresh process each time, half of the runs
    // before the batch and half after, so a machine busier at one end weighs on both sides.
    const singles: number[] = [];
    const single = async (round: number) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, `single-${round}.txt`), "");
      const before = busy.ms;
      const run = await runTimed(["run", "--json", `write single-${round}.txt`], sandbox, flags);
      singles.push(run.ms - (busy.ms - before));
    };
    await single(0); // warms Deno's caches; not counted
    singles.length = 0;
    for (let round = 1; round <= singleRounds; round++) await single(round);

    const ids = Array.from({ length: tasks }, (_, index) => `task-${index + 1}`);
    const file = await writeTaskFile(sandbox.root, sandbox.workspace, ids);
    const requestsBefore = mock.requests.length;
    const busyBefore = busy.ms;
    const batch = await runTimed(["batch", file, "-j", String(jobs), "--json"], sandbox, flags);
    const mockMs = busy.ms - busyBefore;
    for (let round = singleRounds + 1; round <= 2 * singleRounds; round++) await single(round);
    const singleMs = median(singles);
    const completed = batch.lines.filter((line) => line.event.type === "batch.task.completed");
    const failed = completed.filter((line) => line.event.exit_code !== 0).length;
    const requests = mock.requests.length - requestsBefore;
    const perTask = (batch.ms - mockMs) / tasks;
    const ratio = perTask / singleMs;
    const { startMs, taskMs } = taskTimes(batch);
    const startShare = median(startMs) / median(taskMs);
    const sessions = batch.lines.map((line) => line.event)
      .filter((event) => event.type === "session.completed") as {
        usage: { input_tokens: number; output_tokens: number };
        turns: number;
      }[];
    return [
      `batch: ${tasks} tasks at -j ${jobs} in ${(batch.ms / 1000).toFixed(1)} s wall, ` +
      `${completed.length} ended, ${failed} failed, ${requests} requests (the mock answers at ` +
      `once; building its answers took ${mockMs.toFixed(0)} ms)`,
      `  skiff's time per task ${perTask.toFixed(0)} ms (wall − mock, ÷ ${tasks}) against one ` +
      `skiff run of the same task ${singleMs.toFixed(0)} ms: ratio ${ratio.toFixed(2)}× ` +
      `${ratio < 0.5 ? "OK (far below a process per task)" : "HIGH"}; a shell loop of ${tasks} ` +
      `runs ≈ ${(singleMs * tasks / 1000).toFixed(0)} s`,
      `  peak RSS of the batch process ${batch.peakMb.toFixed(0)} MB`,
      `  inside the batch, per task (median): ${median(taskMs).toFixed(0)} ms start to end, of ` +
      `which ${median(startMs).toFixed(0)} ms until its session opened (engine, in a new or ` +
      `kept Worker; store; session: ` +
      `${(startShare * 100).toFixed(0)} %)`,
      `  per task (median): ${median(sessions.map((session) => session.turns))} turns, ${
        median(sessions.map((session) => session.usage.input_tokens))
      } input and ${
        median(sessions.map((session) => session.usage.output_tokens))
      } output tokens as the mock counts them (request characters ÷ 4, tool schemas included)`,
    ];
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

if (import.meta.main) {
  const tasks = Number(Deno.args[0] ?? 200);
  for (const line of await benchBatch(tasks)) console.log(line);
}
