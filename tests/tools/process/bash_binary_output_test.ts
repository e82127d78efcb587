/**
 * bash output that is not text: the model is told it was binary (how many
 * bytes were not UTF-8 or NUL, and how to look at them) instead of getting
 * replacement characters without a word, and the spill file of a long output
 * holds the bytes exactly as the command printed them.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { bashTool } from "../../../src/tools/process/bash.ts";
import { processWorkspace } from "../_processes.ts";

Deno.test("binary output comes with a note that it was binary and how to see its bytes", async () => {
  await using ws = await processWorkspace();
  // Four bytes that are not UTF-8 and two NULs among text.
  const result = await ws.run(bashTool, {
    command: "printf 'head\\377\\376\\000tail\\000\\200\\201\\n'",
  });
  assertStringIncludes(result.output, "head");
  assertStringIncludes(
    result.output,
    "[binary output: 6 of 15 bytes are not UTF-8 text (4 invalid, shown as \uFFFD; 2 NUL).",
  );
  assertStringIncludes(result.output, "xxd");
  assert(result.output.endsWith("exit code: 0"), result.output);
  assertEquals(result.metadata?.binary, true);

  const text = await ws.run(bashTool, { command: "printf 'caf\\303\\251 \\357\\277\\275\\n'" });
  assert(!text.output.includes("binary output"), "UTF-8 (a real U+FFFD included) is text");
  assertEquals(text.metadata?.binary, undefined);
});

Deno.test("the spill file of a long binary output keeps the bytes as printed", async () => {
  await using ws = await processWorkspace();
  // 40,000 bytes: every byte value, NULs and invalid UTF-8 included, over and over.
  const result = await ws.run(bashTool, {
    command:
      "i=0; while [ $i -lt 40000 ]; do printf '\\\\%03o' $((i % 256)); i=$((i+1)); done > esc.txt; printf \"$(cat esc.txt)\" | head -c 40000",
  });
  const file = String(result.metadata?.fullOutputPath);
  const spilled = await Deno.readFile(file);
  const expected = Uint8Array.from({ length: 40000 }, (_, i) => i % 256);
  assertEquals(spilled.length, expected.length);
  assertEquals(spilled, expected);
  assertStringIncludes(result.output, "[binary output:");
  assertStringIncludes(result.output, file);
});
