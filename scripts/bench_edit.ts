/**
 * Benchmark of the edit tool with a fuzzy (block-anchor) match in files of
 * 1k, 10k and 100k lines. The matcher must scale about linearly with the
 * file, so each tenfold step in size should cost about tenfold in time (a
 * ratio near 10; far above means something quadratic crept in).
 *
 * `deno run --allow-all scripts/bench_edit.ts` prints the report; the
 * project bench (`deno task bench`) imports `benchEdit`.
 */
import * as path from "node:path";
import { makeContext } from "../tests/tools/_context.ts";
import { applyEdit } from "../src/tools/files/match/match.ts";
import { editTool } from "../src/tools/files/edit.ts";
import { type ToolContext, ToolError } from "../src/tools/tool.ts";

const SIZES = [1_000, 10_000, 100_000];
const RUNS = 9;

/** A file of `lines` lines of varied code with one target function in the middle. */
function makeSource(lines: number): { text: string; oldString: string } {
  const out: string[] = [];
  let n = 0;
  const target = [
    "function computeInvoiceTotal(invoice) {",
    "  const lines = invoice.lines.filter((line) => line.quantity > 0);",
    "  let subtotal = 0;",
    "  for (const line of lines) subtotal += line.price * line.quantity;",
    "  const tax = subtotal * invoice.taxRate;",
    "  const discount = invoice.discount ?? 0;",
    "  return subtotal + tax - discount;",
    "}",
  ];
  while (out.length < lines) {
    if (out.length >= lines / 2 && out.length < lines / 2 + 8 && !out.includes(target[0])) {
      out.push(...target);
      continue;
    }
    n++;
    out.push(
      `function helper${n}(value) {`,
      `  const scaled = value * ${n % 97};`,
      `  if (scaled > ${n % 13}) return scaled - ${n % 7};`,
      `  return scaled + ${n % 5};`,
      "}",
      "",
    );
  }
  const text = out.slice(0, lines).join("\n") + "\n";
  // The model's copy: one middle line misremembered, indentation intact —
  // exact and line-trimmed fail, block-anchor has to find it.
  const oldString = [...target];
  oldString[4] = "  const tax = subtotal * invoice.tax_rate;";
  return { text, oldString: oldString.join("\n") };
}

function context(workspace: string): ToolContext {
  return makeContext(workspace);
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Run the benchmark; returns the report, one line per entry. */
export async function benchEdit(): Promise<string[]> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-bench-edit-" }));
  const ctx = context(workspace);
  const file = path.join(workspace, "big.js");
  const rows: { lines: number; matcher: number; tool: number; miss: number }[] = [];
  try {
    for (const lines of SIZES) {
      const { text, oldString } = makeSource(lines);
      const request = {
        old_string: oldString,
        new_string: "function computeInvoiceTotal() {\n  return 0;\n}",
      };
      const matcherTimes: number[] = [];
      const toolTimes: number[] = [];
      const missTimes: number[] = [];
      // Worst case: nothing matches, so every replacer and the closest-region hint run.
      const missing = {
        old_string: oldString.split("\n").map((line) => `// ${line}`).join("\n"),
        new_string: "x",
      };
      for (let run = 0; run <= RUNS; run++) {
        const missStarted = performance.now();
        try {
          applyEdit(text, missing, "big.js");
          throw new Error("expected no match");
        } catch (error) {
          if (!(error instanceof ToolError) || error.code !== "no_match") throw error;
        }
        const miss = performance.now() - missStarted;
        let started = performance.now();
        const outcome = applyEdit(text, request, "big.js");
        const matcher = performance.now() - started;
        if (outcome.replacer !== "block-anchor") {
          throw new Error(`expected a block-anchor match, got ${outcome.replacer}`);
        }
        const bytes = new TextEncoder().encode(text);
        await Deno.writeFile(file, bytes);
        ctx.files.markRead(file, bytes);
        started = performance.now();
        await editTool.execute({ file_path: "big.js", ...request }, ctx);
        const tool = performance.now() - started;
        if (run > 0) { // the first run warms the JIT
          matcherTimes.push(matcher);
          toolTimes.push(tool);
          missTimes.push(miss);
        }
      }
      rows.push({
        lines,
        matcher: median(matcherTimes),
        tool: median(toolTimes),
        miss: median(missTimes),
      });
    }
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
  const report = [`edit in a large file (median of ${RUNS} runs; growth per ×10 lines):`];
  const growth = (
    now: number,
    before?: number,
  ) => (before ? ` (×${(now / before).toFixed(1)})` : "");
  rows.forEach((row, i) => {
    const previous = rows[i - 1];
    report.push(
      `  ${String(row.lines).padStart(7)} lines: block-anchor match ${ms(row.matcher)}` +
        `${growth(row.matcher, previous?.matcher)}, whole edit call ${ms(row.tool)}` +
        `${growth(row.tool, previous?.tool)}, no match (whole chain) ${ms(row.miss)}` +
        growth(row.miss, previous?.miss),
    );
  });
  return report;
}

if (import.meta.main) {
  for (const line of await benchEdit()) console.log(line);
}
