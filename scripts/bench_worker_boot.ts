/**
 * What the engine Worker's start costs, and whether one bundled module would
 * start it faster than the source graph (docs/performance.md, "Start-up").
 * Bundles src/app/engine_worker.ts (npm packages included) into a temp
 * folder with `deno bundle --minify` (which fetches esbuild from the npm
 * registry the first time), then times, each in a fresh process and
 * interleaved round by round (medians): an engine started in a Worker from
 * the source graph, the same Worker started from the bundle (same Deno
 * permissions: the terminal side loads a Worker's module), the engine on
 * this thread (no Worker), the source graph again without V8's code cache,
 * and an empty `deno run`. Each start opens a session and runs one `read`
 * of a 1-line file, as `skiff tool read` does; reported: start → session
 * open, start → tool result, whole process, CPU (user + system) and peak RSS.
 *
 * Run: deno run -A --unstable-worker-options scripts/bench_worker_boot.ts [rounds]
 */
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runtimeFlags } from "./compile.ts";
import { startInWorker } from "../src/app/worker_host.ts";
import { startInProcess } from "../src/app/host.ts";
import type { EngineSpec } from "../src/app/engine_types.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SELF = fileURLToPath(import.meta.url);

type Variant = "source" | "bundle" | "inline" | "source-no-code-cache";
const VARIANTS: Variant[] = ["source", "bundle", "inline", "source-no-code-cache"];

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
    config: {},
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

/** In the child process: start one engine, open a session, read one file; print the times. */
async function once(variant: Variant, bundle: string, dir: string): Promise<void> {
  const spec = benchSpec(dir);
  const io = { event() {}, ask: () => Promise.resolve("deny" as const) };
  const started = performance.now();
  const engine = variant === "inline"
    ? await startInProcess(spec, io)
    : await startInWorker(spec, io, variant === "bundle" ? new URL(bundle) : undefined);
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

async function buildBundle(dir: string): Promise<string> {
  const file = path.join(dir, "engine_worker.js");
  const started = performance.now();
  await spawn([
    "bundle",
    "--quiet",
    "--platform",
    "deno",
    "--minify",
    "-o",
    file,
    "src/app/engine_worker.ts",
  ]);
  const ms = performance.now() - started;
  console.error(
    `bundled in ${ms.toFixed(0)} ms: ${(Deno.statSync(file).size / 1e6).toFixed(1)} MB`,
  );
  return pathToFileURL(file).href;
}

export async function benchWorkerBoot(rounds = 11): Promise<string[]> {
  const flags = await runtimeFlags();
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-worker-" });
  try {
    await Deno.mkdir(path.join(dir, "workspace"));
    await Deno.writeTextFile(path.join(dir, "workspace", "one.txt"), "hello\n");
    const empty = path.join(dir, "empty.ts");
    await Deno.writeTextFile(empty, "");
    const bundle = await buildBundle(dir);
    const samples = new Map<Variant | "empty", Sample[]>();
    const measure = async (variant: Variant | "empty") => {
      if (variant === "empty") {
        const run = await spawn(["run", ...flags, empty]);
        return { open: 0, tool: 0, wall: run.wall, cpu: run.cpu, rssMb: 0 };
      }
      const cacheFlags = variant === "source-no-code-cache" ? ["--no-code-cache"] : [];
      const run = await spawn([
        "run",
        ...flags,
        ...cacheFlags,
        SELF,
        "--once",
        variant,
        bundle,
        dir,
      ]);
      return { ...JSON.parse(run.stdout), wall: run.wall, cpu: run.cpu };
    };
    const all: (Variant | "empty")[] = ["empty", ...VARIANTS];
    for (const variant of all) await measure(variant); // warm the caches once
    for (let round = 0; round < rounds; round++) {
      for (const variant of all) {
        const list = samples.get(variant) ?? [];
        list.push(await measure(variant));
        samples.set(variant, list);
      }
    }
    const emptyMs = median(samples.get("empty")!.map((sample) => sample.wall));
    const lines = [`worker boot: ${rounds} rounds, empty deno run ${emptyMs.toFixed(0)} ms`];
    for (const variant of VARIANTS) {
      const list = samples.get(variant)!;
      const pick = (key: keyof Sample) => median(list.map((sample) => sample[key]));
      lines.push(
        `  ${variant.padEnd(21)} open ${pick("open").toFixed(0)} ms, tool ${
          pick("tool").toFixed(0)
        } ms; process ${pick("wall").toFixed(0)} ms (${
          (pick("wall") / emptyMs).toFixed(2)
        }×), CPU ${pick("cpu").toFixed(0)} ms, peak RSS ${pick("rssMb").toFixed(0)} MB`,
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
