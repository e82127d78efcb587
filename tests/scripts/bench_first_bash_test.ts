/**
 * scripts/bench_first_bash.ts runs: one round of a streamed model run whose
 * first call is a sandboxed bash command, timed from its events. Needs a
 * working sandbox (bubblewrap or Landlock), as every sandboxed run does.
 */
import { assert } from "../support/assert.ts";
import { benchFirstBash } from "../../scripts/bench_first_bash.ts";

Deno.test("bench_first_bash: times the first bash call of a streamed run", async () => {
  const lines = await benchFirstBash(1);
  const figure = /tool\.started → tool\.completed (\d+) ms, whole process (\d+) ms/.exec(lines[0]);
  assert(figure, lines.join("\n"));
  const [call, whole] = [Number(figure[1]), Number(figure[2])];
  assert(call > 0 && whole > call, `implausible figures: ${lines[0]}`);
});
