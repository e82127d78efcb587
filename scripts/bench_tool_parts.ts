/**
 * What one scripted `read` call pays besides the read, part by part, in this
 * process: the hidden-path check (twice: declare and execute), the resolver
 * (three times: declare, the policy, execute), the policy's judgement, the
 * read-before-edit ledger's save, the two stored events, and the read itself
 * (a stat and a read of a 1-line file). With SKIFF_BENCH_BEFORE=<another
 * tree>/main.ts each part is measured with that tree's modules and this
 * tree's, interleaved round by round; medians in µs per call.
 * Run: deno run -A scripts/bench_tool_parts.ts
 */
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

type Part = { name: string; run: () => void | Promise<void> };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The parts of one call, built from the modules of the tree at `root`. */
async function partsOf(root: string, dir: string): Promise<Part[]> {
  const load = (file: string) => import(pathToFileURL(path.join(root, "src", file)).href);
  const paths = await load("sandbox/paths.ts");
  const hidden = await load("sandbox/hidden.ts");
  const toolPaths = await load("tools/tool_paths.ts");
  const evaluate = await load("permission/evaluate.ts");
  const layers = await load("permission/layers.ts");
  const store = await load("store/store.ts");
  const events = await load("contracts/events.ts");
  const workspace = path.join(dir, "work");
  const dataDir = path.join(dir, "data");
  await Deno.mkdir(workspace, { recursive: true });
  const file = path.join(workspace, "one.txt");
  await Deno.writeTextFile(file, "hello\n");
  const home = Deno.env.get("HOME") ?? "/root";
  const hiddenList: string[] = hiddenPathsFor(hidden, home, workspace, dataDir);
  const opened = store.openStore(dataDir);
  const session = opened.createSession({ workspace, model: "m", agent: "tool" });
  const ledger: [string, string][] = [[file, "h1"], [path.join(workspace, "two.txt"), "h2"]];
  opened.saveFileReads(session.id, ledger);
  const ctx = { workspace, extraDirs: [], hidden: hiddenList, dataDir, sessionId: session.id };
  const table = [...layers.buildLayers({}), { name: "session", permission: {} }];
  const real = file;
  const started = events.makeEvent("tool.started", session.id, {
    turn: 0,
    call_id: "call_0123456789abcdef",
    tool: "read",
    input: { file_path: "one.txt" },
  });
  const completed = events.makeEvent("tool.completed", session.id, {
    turn: 0,
    call_id: "call_0123456789abcdef",
    tool: "read",
    ok: true,
    title: "one.txt (1-1 of 1)",
    output: "     1\thello\n\n(end of file, 1 line)",
    metadata: { lines: 1, from: 1, to: 1, more: false, title: "one.txt (1-1 of 1)" },
    duration_ms: 1,
  });
  return [
    {
      name: "hidden-path check ×2",
      run: () => {
        toolPaths.refuseHidden(ctx, real, "one.txt");
        toolPaths.refuseHidden(ctx, real, "one.txt");
      },
    },
    {
      name: "resolver ×3",
      run: () => {
        paths.resolveWorkspacePath(workspace, "one.txt", []);
        paths.resolveWorkspacePath(workspace, real, []);
        paths.resolveWorkspacePath(workspace, "one.txt", []);
      },
    },
    {
      name: "policy judgement (evaluate)",
      run: () => {
        evaluate.evaluate({ key: "read", patterns: ["one.txt"], reads: [real] }, {
          layers: table,
          workspace,
          extraDirs: [],
          mode: "workspace-write",
        });
      },
    },
    { name: "ledger save, unchanged", run: () => opened.saveFileReads(session.id, ledger) },
    {
      name: "two stored events",
      run: () => {
        opened.appendEvent(started);
        opened.appendEvent(completed);
      },
    },
    {
      name: "the read itself (stat + read)",
      run: async () => {
        await Deno.stat(file);
        await Deno.readFile(file);
      },
    },
  ];
}

function hiddenPathsFor(
  hidden: { hiddenPaths: (input: unknown) => string[] },
  home: string,
  workspace: string,
  dataDir: string,
): string[] {
  return hidden.hiddenPaths({
    home,
    workspace,
    configDir: path.join(home, ".config", "skiff"),
    dataDir,
  });
}

export async function benchToolParts(
  trees: { name: string; root: string }[],
  rounds = 9,
  calls = 400,
): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-parts-" });
  try {
    const built: Part[][] = [];
    for (const [index, tree] of trees.entries()) {
      built.push(await partsOf(tree.root, path.join(dir, String(index))));
    }
    const times = trees.map(() => built[0].map(() => [] as number[]));
    for (let round = 0; round <= rounds; round++) {
      for (let part = 0; part < built[0].length; part++) {
        // Each round in the other order, so neither tree always goes first.
        const order = trees.map((_, index) => index);
        if (round % 2) order.reverse();
        for (const tree of order) {
          const { run } = built[tree][part];
          const started = performance.now();
          for (let call = 0; call < calls; call++) await run();
          if (round > 0) times[tree][part].push((performance.now() - started) / calls * 1000);
        }
      }
    }
    const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0];
    const header = `part (µs per call, median of ${rounds} rounds × ${calls}, load ${load})`;
    const lines = [`${header}: ${trees.map((tree) => tree.name).join(" → ")}`];
    for (let part = 0; part < built[0].length; part++) {
      const medians = trees.map((_, tree) => median(times[tree][part]));
      const ratio = trees.length > 1 ? ` (${(medians.at(-1)! / medians[0]).toFixed(2)}×)` : "";
      lines.push(
        `  ${built[0][part].name}: ${medians.map((us) => us.toFixed(1)).join(" → ")}${ratio}`,
      );
    }
    return lines;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const before = Deno.env.get("SKIFF_BENCH_BEFORE");
  const trees = before
    ? [{ name: "before", root: path.dirname(before) }, { name: "after", root: ROOT }]
    : [{ name: "this tree", root: ROOT }];
  for (const line of await benchToolParts(trees)) console.log(line);
}
