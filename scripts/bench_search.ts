/**
 * Search benchmark: builds a large tree (20,000 source files with nested
 * .gitignore files and ignored build output) in a temporary folder and times,
 * in one run so machine noise falls on both sides of each ratio:
 * - the grep tool on its ripgrep engine and on the TypeScript fallback
 *   against `rg --line-number` run directly (aim: ≤1.5× and ≤4×);
 * - the glob tool against `rg --files`, and against `rg --files --sortr
 *   modified`, which does the same newest-first work glob does;
 * - the symbol tool on ripgrep against `rg --line-number -w NAME`, the same
 *   word-boundary search without telling definitions from uses (aim: ≤1.5×).
 * Each figure is the median of several alternating rounds, spawn included.
 * Run alone with `deno run --allow-all scripts/bench_search.ts`.
 */
import * as path from "node:path";
import { buildTree, MODULES } from "./_bench_tree.ts";
import { makeContext } from "../tests/tools/_context.ts";
import { globTool } from "../src/tools/search/glob.ts";
import { createGrepTool } from "../src/tools/search/grep.ts";
import { createSymbolTool } from "../src/tools/search/symbol.ts";
import { findRipgrep } from "../src/tools/search/_grep_rg.ts";
import type { Tool, ToolContext } from "../src/tools/tool.ts";

const PACKAGES = 20;
const ROUNDS = 7;

function context(root: string): ToolContext {
  return makeContext(root);
}

async function timeTool<I>(tool: Tool<I>, input: I, ctx: ToolContext): Promise<number> {
  const started = performance.now();
  await tool.execute(input, ctx);
  return performance.now() - started;
}

async function timeCommand(program: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  await new Deno.Command(program, { args, cwd, stdout: "piped", stderr: "null" }).output();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Medians of alternating rounds, after one warm-up of each. */
async function measure(runs: (() => Promise<number>)[]): Promise<number[]> {
  for (const run of runs) await run();
  const times = runs.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, run] of runs.entries()) times[index].push(await run());
  }
  return times.map(median);
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;

export async function benchSearch(): Promise<string[]> {
  const rg = findRipgrep();
  if (!rg) {
    return ["search: SKIPPED — ripgrep (rg) is not on PATH, so there is nothing to compare with."];
  }
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-bench-search-" }));
  try {
    const files = buildTree(root, PACKAGES);
    const ctx = context(root);
    const ripgrepEngine = createGrepTool({ engine: "ripgrep" });
    const fallbackEngine = createGrepTool({ engine: "fallback" });
    const lines = [
      `search: ${files} files (plus ignored output) under ${PACKAGES * MODULES} folders`,
    ];

    for (const [label, pattern] of [["rare", "needleMarker"], ["common", "helper\\(x\\) \\* 2"]]) {
      const [direct, viaRg, viaFallback] = await measure([
        () => timeCommand(rg, ["--line-number", pattern, root], root),
        () => timeTool(ripgrepEngine, { pattern }, ctx),
        () => timeTool(fallbackEngine, { pattern }, ctx),
      ]);
      lines.push(
        `grep ${label} /${pattern}/: rg ${ms(direct)}; tool on rg ${ms(viaRg)} (${
          ratio(viaRg, direct)
        }, aim ≤1.5×); ` +
          `fallback ${ms(viaFallback)} (${ratio(viaFallback, direct)}, aim ≤4×)`,
      );
    }

    const symbolOnRg = createSymbolTool({ engine: "ripgrep" });
    for (const [label, name] of [["rare", "needleMarker"], ["common", "helper"]]) {
      const [direct, viaTool] = await measure([
        () =>
          timeCommand(rg, ["--line-number", "--word-regexp", "--fixed-strings", name, root], root),
        () => timeTool(symbolOnRg, { name }, ctx),
      ]);
      lines.push(
        `symbol ${label} ${name}: rg -w ${ms(direct)}; tool on rg ${ms(viaTool)} (${
          ratio(viaTool, direct)
        }, aim ≤1.5×)`,
      );
    }

    const [files1, sorted, glob] = await measure([
      () => timeCommand(rg, ["--files", root], root),
      () => timeCommand(rg, ["--files", "--sortr", "modified", root], root),
      () => timeTool(globTool, { pattern: "**/*.ts" }, ctx),
    ]);
    lines.push(
      `glob **/*.ts (newest first): ${ms(glob)}; rg --files ${ms(files1)} (${
        ratio(glob, files1)
      }); ` +
        `rg --files --sortr modified ${ms(sorted)} (${ratio(glob, sorted)})`,
    );
    const [narrowRg, narrowGlob] = await measure([
      () => timeCommand(rg, ["--files", "--glob", "*.ts", path.join(root, "pkg3")], root),
      () => timeTool(globTool, { pattern: "pkg3/**/*.ts" }, ctx),
    ]);
    lines.push(
      `glob pkg3/**/*.ts: ${ms(narrowGlob)}; rg --files -g '*.ts' pkg3 ${ms(narrowRg)} (${
        ratio(narrowGlob, narrowRg)
      })`,
    );
    return lines;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) {
  for (const line of await benchSearch()) console.log(line);
}
