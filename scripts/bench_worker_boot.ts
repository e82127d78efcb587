/**
 * What the engine Worker's start costs (docs/performance.md, "Start-up"):
 * each in a fresh process, interleaved round by round (medians), an engine
 * started in a Worker from the source graph, the same engine on this thread
 * (no Worker), and an empty `deno run`; with SKIFF_BENCH_MAIN=<tree>/main.ts
 * also that tree's Worker, for before/after figures of one run. Each start
 * opens a session and runs one `read` of a 1-line file, as `skiff tool read`
 * does; reported: start → session open, start → tool result, whole process,
 * CPU (user + system) and peak RSS. (A bundled Worker module was measured
 * here and not shipped; the section says why.)
 *
 * Run: deno run -A --unstable-worker-options scripts/bench_worker_boot.ts [rounds]
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeFlags } from "./compile.ts";
import { startInWorker } from "../src/host/worker_client.ts";
import { startInProcess } from "../src/engine/handle.ts";
import type { EngineSpec } from "../src/engine/types.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SELF = fileURLToPath(import.meta.url);

type Variant = "source" | "inline" | "other tree";

interface Sample {
  open: number;
  tool: number;
  wall: number;
  cpu: number;
  rssMb: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function benchSpec(dir: string): EngineSpec {
  return {
    workspace: path.join(dir, "workspace"),
    dataDir: path.join(dir, "data"),
    configDir: path.join(dir, "config"),
    settings: {},
    permissionLayers: [],
    model: "mock-model",
    agent: "tool",
    depth: 0,
    inheritedPermission: [],
    owns: [],
    mcp: { enabled: false, env: {}, blocked: [] },
    sandbox: { mode: "workspace-write", network: false, addDirs: [], env: [] },
    flags: { allow: [], ask: [], deny: [], yes: false },
    warnings: [],
    interactive: false,
    provider: { baseURL: "http://127.0.0.1:1/v1", apiKey: "unused" },
  };
}

/**
 * In the child process: start one engine, open a session, read one file;
 * print the times. The second argument is unused (it named a bundle once;
 * kept so that trees before and after this change take the same arguments).
 */
async function once(variant: Variant, _unused: string, dir: string): Promise<void> {
  const spec = benchSpec(dir);
  const io = { event() {}, ask: () => Promise.resolve("deny" as const) };
  const started = performance.now();
  const engine = variant === "inline"
    ? await startInProcess(spec, io)
    : await startInWorker(spec, io);
  await engine.open({});
  const opened = performance.now();
  const result = await engine.runTool("read", { file_path: "one.txt" });
  const done = performance.now();
  await engine.close();
  if (!result.ok) throw new Error(`read failed: ${JSON.stringify(result)}`);
  const status = Deno.readTextFileSync("/proc/self/status");
  const rssKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  console.log(
    JSON.stringify({ open: opened - started, tool: done - started, rssMb: rssKb / 1024 }),
  );
}

function cpuMs(): number {
  // Children's user + system time so far, in clock ticks (100 per second on Linux).
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

async function spawn(args: string[]): Promise<{ stdout: string; wall: number; cpu: number }> {
  const cpuBefore = cpuMs();
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wall = performance.now() - started;
  if (!output.success) {
    throw new Error(`deno ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return { stdout: new TextDecoder().decode(output.stdout), wall, cpu: cpuMs() - cpuBefore };
}

export async function benchWorkerBoot(rounds = 11): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-worker-" });
  try {
    await Deno.mkdir(path.join(dir, "workspace"));
    await Deno.writeTextFile(path.join(dir, "workspace", "one.txt"), "hello\n");
    const empty = path.join(dir, "empty.ts");
    await Deno.writeTextFile(empty, "");
    const other = Deno.env.get("SKIFF_BENCH_MAIN");
    const otherScript = other && path.join(path.dirname(other), "scripts", "bench_worker_boot.ts");
    const variants: Variant[] = other ? ["source", "other tree", "inline"] : ["source", "inline"];
    const samples = new Map<Variant | "empty", Sample[]>();
    const measure = async (variant: Variant | "empty") => {
      if (variant === "empty") {
        const run = await spawn(["run", ...flags, empty]);
        return { open: 0, tool: 0, wall: run.wall, cpu: run.cpu, rssMb: 0 };
      }
      const script = variant === "other tree" ? otherScript! : SELF;
      const asVariant = variant === "other tree" ? "source" : variant;
      const run = await spawn(["run", ...flags, script, "--once", asVariant, "-", dir]);
      return { ...JSON.parse(run.stdout), wall: run.wall, cpu: run.cpu };
    };
    const all: (Variant | "empty")[] = ["empty", ...variants];
    for (const variant of all) await measure(variant); // warm the caches once
    for (let round = 0; round < rounds; round++) {
      for (const variant of all) {
        const list = samples.get(variant) ?? [];
        list.push(await measure(variant));
        samples.set(variant, list);
      }
    }
    const emptyMs = median(samples.get("empty")!.map((sample) => sample.wall));
    const load = Deno.loadavg()[0].toFixed(1);
    const lines = [
      `worker boot: ${rounds} rounds, load ${load}, empty deno run ${emptyMs.toFixed(0)} ms` +
      (other ? `; other tree: ${other}` : ""),
    ];
    for (const variant of variants) {
      const list = samples.get(variant)!;
      const pick = (key: keyof Sample) => median(list.map((sample) => sample[key]));
      lines.push(
        `  ${variant.padEnd(10)} open ${pick("open").toFixed(0)} ms, tool ${
          pick("tool").toFixed(0)
        } ms; process ${pick("wall").toFixed(0)} ms (${
          (pick("wall") / emptyMs).toFixed(2)
        }×), CPU ${pick("cpu").toFixed(0)} ms, peak RSS ${pick("rssMb").toFixed(0)} MB`,
      );
    }
    if (other) {
      const mine = samples.get("source")!;
      const theirs = samples.get("other tree")!;
      const paired = mine.map((sample, round) => sample.tool - theirs[round].tool);
      const faster = paired.filter((difference) => difference < 0).length;
      lines.push(
        `  source − other tree, start → tool result, paired: median ${
          median(paired).toFixed(0)
        } ms, faster in ${faster} of ${rounds}`,
      );
    }
    return lines;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--once") {
    await once(Deno.args[1] as Variant, Deno.args[2], Deno.args[3]);
  } else {
    for (const line of await benchWorkerBoot(Number(Deno.args[0] ?? 11))) console.log(line);
  }
}
