/**
 * A repository file built to stall the symbol tool: a 1 MB line that names
 * the symbol and makes the definition patterns backtrack. The call answers
 * within its bound, lists the line as a reference and says it was not
 * judged; the control times the same pattern on far shorter lines.
 */
import { assert, assertStringIncludes } from "../../support/assert.ts";
import {
  createSymbolTool,
  DEFINITION_BUDGET_MS,
  MAX_DEFINITION_LINE_CHARS,
} from "../../../src/tools/search/symbol.ts";
import { LANGUAGES } from "../../../src/tools/search/_symbol_patterns.ts";
import { findRipgrep } from "../../../src/tools/search/_grep_rg.ts";
import { makeWorkspace } from "../_context.ts";

const hasRipgrep = findRipgrep() !== null;
if (!hasRipgrep) {
  console.warn("SKIPPED: ripgrep (rg) is not on PATH; only the fallback engine runs.");
}
const engines = hasRipgrep
  ? [createSymbolTool({ engine: "ripgrep" }), createSymbolTool({ engine: "fallback" })]
  : [createSymbolTool({ engine: "fallback" })];

Deno.test("symbol: a 1 MB line and thousands of hostile lines answer within the budget", async () => {
  await using ws = await makeWorkspace();
  await ws.write("huge.ts", "target" + "():".repeat(350_000) + "\nexport function target() {}\n");
  // Many lines just under the length bound, each slow to test: the shared budget ends the tests.
  const slow = ("target" + "():".repeat(160)).slice(0, MAX_DEFINITION_LINE_CHARS);
  await ws.write("many.ts", `${slow}\n`.repeat(3_000));
  for (const tool of engines) {
    const start = performance.now();
    const result = await ws.run(tool, { name: "target" });
    const ms = performance.now() - start;
    assert(ms < DEFINITION_BUDGET_MS + 8_000, `${tool.name}: ${Math.round(ms)} ms`);
    assertStringIncludes(result.output, "huge.ts:2: export function target() {}");
    assertStringIncludes(result.output, "without a definition test");
  }
});

Deno.test("control: the method pattern's time grows with the cube of a line's length", () => {
  const method = LANGUAGES[0].definitions[3].replaceAll("NAME", "\\btarget\\b");
  const pattern = new RegExp(method, "u");
  const time = (length: number) => {
    const line = "target" + "():".repeat(length / 3);
    const start = performance.now();
    pattern.test(line);
    return performance.now() - start;
  };
  time(300);
  const short = time(3_000);
  const long = time(24_000);
  console.log(
    `method pattern: 3,000 chars ${short.toFixed(1)} ms, 24,000 chars ${long.toFixed(1)} ms`,
  );
  // A 1 MB line is 40 times longer again: it would not finish.
  assert(long > 100, `24,000 characters took ${long.toFixed(1)} ms`);
});
