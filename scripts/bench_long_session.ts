/**
 * The long-session bench (`deno task bench` runs it): a scripted
 * 300-turn session through `skiff run` against the mock, 32k-token window,
 * each turn reading a ~20 KB log and every tenth writing a file. Reports the
 * per-turn overhead of the first and last 50 turns (medians), the peak RSS
 * of the skiff process, the largest request the mock received, how often
 * the session was summarised, and whether every handoff held the task and
 * the changed files. (That no turn writes the history to SQLite again is
 * asserted in tests/e2e/turn_writes_test.ts, with the bytes each turn writes.)
 * The CPU time of the skiff process (user + system, all threads) is reported
 * with the wall time: what the engine's collections cost shows there
 * (lib/collect.ts, docs/performance.md "Per turn and memory").
 *
 * `deno run -A scripts/bench_long_session.ts [turns] [flags for skiff's
 * process]`; SKIFF_BENCH_MAIN measures another tree's main.ts.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { makeSandbox } from "../tests/support/cli.ts";
import { LONG_CONFIG, LONG_TASK, LONG_WINDOW, LongSession } from "../tests/support/long_session.ts";
import { openStore } from "../src/store/store.ts";
import { runtimeFlags } from "./compile.ts";
import { childCpuSeconds, cpuBetween } from "./bench_turns.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** SKIFF_BENCH_MAIN: another tree's main.ts, to measure a before and an after in one sitting. */
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");
const RSS_TARGET_MB = 150;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The process's peak resident set so far (VmHWM), in MB; 0 once it is gone. */
function peakRssMb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

export async function benchLongSession(
  turns = 300,
  extraFlags: string[] = [],
): Promise<string[]> {
  const session = new LongSession({ turns });
  const mock = startMockServer([], { respond: session.respond });
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await LongSession.prepare(sandbox.workspace);
    await Deno.writeTextFile(`${sandbox.configDir}/config.json`, JSON.stringify(LONG_CONFIG));
    const started = performance.now();
    const cpuBefore = childCpuSeconds();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...(await runtimeFlags()),
        ...extraFlags,
        MAIN,
        "run",
        "--json",
        "-y",
        LONG_TASK,
      ],
      cwd: sandbox.workspace,
      env: sandbox.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid))), 25);
    const output = await child.output();
    clearInterval(poll);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuBetween(cpuBefore, childCpuSeconds());
    if (output.code !== 0) {
      throw new Error(
        `skiff run ended with ${output.code}: ${
          new TextDecoder().decode(output.stderr).slice(-800)
        }`,
      );
    }
    const gaps = session.arrivals.slice(1).map((at, index) => at - session.arrivals[index]);
    const first = median(gaps.slice(0, 50));
    const last = median(gaps.slice(-50));
    const store = openStore(sandbox.dataDir);
    let rows = 0;
    let stored = 0;
    try {
      const id = store.latestSession(sandbox.workspace)!.id;
      rows = store.usage.ownTotals(id).requests;
      stored = store.loadHistory(id).length;
    } finally {
      store.close();
    }
    const largest = Math.max(...session.sizes);
    const ratio = last / first;
    return [
      `long session: ${turns} turns in ${seconds.toFixed(1)} s (${
        cpu.total.toFixed(1)
      } s of CPU: ` +
      `user ${cpu.user.toFixed(1)}, system ${cpu.system.toFixed(1)}), ` +
      `exit 0; ${mock.requests.length} ` +
      `requests (${session.summaries} summaries), ${rows} usage rows, ${stored} messages stored`,
      `  largest request ${largest} tokens of a ${LONG_WINDOW} window ` +
      `${largest <= LONG_WINDOW ? "OK" : "OVER"}; handoffs checked ${session.handoffsChecked}, ` +
      `problems ${session.problems.length} ${
        session.problems.length ? session.problems.slice(0, 3).join("; ") : "OK"
      }`,
      `  per-turn overhead (request to next request, tool and store included): first 50 median ` +
      `${first.toFixed(1)} ms, last 50 median ${last.toFixed(1)} ms, ratio ${ratio.toFixed(2)}× ` +
      `${ratio <= 1.5 ? "OK (flat)" : "GROWING"}`,
      `  peak RSS of the skiff process ${peak.toFixed(0)} MB (aim ≤ ${RSS_TARGET_MB} MB) ${
        peak <= RSS_TARGET_MB ? "OK" : "OVER"
      }`,
    ];
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

if (import.meta.main) {
  const [turns, ...flags] = Deno.args;
  for (const line of await benchLongSession(Number(turns ?? 300), flags)) console.log(line);
}
