/**
 * `deno task bench`: start-up and one-shot figures, measured in one run so
 * a noisy machine shows up in both sides of each ratio.
 * - `skiff --version` against an empty `deno run` (target: within 1.5×);
 * - one-shot `skiff run` against the mock endpoint (target: under 0.5 s);
 * - then the edit and search benchmarks of the tool suite;
 * - a scripted 300-turn session in a 32k window (scripts/bench_long_session.ts):
 *   per-turn overhead first and last 50 turns, peak RSS, largest request.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { runtimeFlags } from "./compile.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MAIN = path.join(ROOT, "main.ts");

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
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

export async function benchOneShot(rounds = 7): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-" });
  const mock = startMockServer(Array.from({ length: rounds + 1 }, () => ({ text: "ok" })));
  const env = {
    ...Deno.env.toObject(),
    OPENAI_BASE_URL: mock.url,
    SKIFF_MODEL: "mock-model",
    SKIFF_DATA_DIR: path.join(dir, "data"),
    SKIFF_CONFIG_DIR: path.join(dir, "config"),
  };
  try {
    const times: number[] = [];
    await timeOnce(["run", ...flags, MAIN, "run", "--dir", dir, "hi"], env);
    for (let round = 0; round < rounds; round++) {
      times.push(await timeOnce(["run", ...flags, MAIN, "run", "--dir", dir, "hi"], env));
    }
    const value = median(times);
    return [
      `one-shot: skiff run (prompt → answer → exit) against the mock: median ${
        value.toFixed(0)
      } ms of ${rounds} (target < 500 ms) ${value < 500 ? "OK" : "OVER"}`,
    ];
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const sections: [string, () => Promise<string[]>][] = [
    ["start-up", () => benchStartup()],
    ["one-shot run", () => benchOneShot()],
    ["edit", async () => (await import("./bench_edit.ts")).benchEdit()],
    ["search", async () => (await import("./bench_search.ts")).benchSearch()],
    ["long session", async () => (await import("./bench_long_session.ts")).benchLongSession()],
    ["chat", async () => (await import("./bench_chat.ts")).benchChat()],
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
