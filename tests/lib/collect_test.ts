/**
 * The chat collects garbage between turns, so its memory stays flat over a
 * long conversation (scripts/bench_chat.ts measures it). `gc` exists only
 * under `--v8-flags=--expose-gc`, which deno.json's tasks (and so the
 * compiled binary, scripts/compile.ts) pass.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { collectGarbage } from "../../src/lib/collect.ts";
import { runtimeFlags } from "../../scripts/compile.ts";

Deno.test("collectGarbage calls gc where the runtime exposes it, and is harmless where not", () => {
  let calls = 0;
  assertEquals(collectGarbage({ gc: () => void calls++ }), true);
  assertEquals(calls, 1);
  assertEquals(collectGarbage({}), false);
});

Deno.test("skiff runs with gc exposed: deno.json's flags, which the compiled binary copies", async () => {
  const v8 = (await runtimeFlags()).find((flag) => flag.startsWith("--v8-flags="));
  assert(v8?.slice("--v8-flags=".length).split(",").includes("--expose-gc"), `flags: ${v8}`);
});

Deno.test("a Worker started by a process with gc exposed can collect too", async () => {
  const source = `self.postMessage(typeof globalThis.gc);`;
  const url = `data:application/javascript,${encodeURIComponent(source)}`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--v8-flags=--expose-gc",
      `const w = new Worker(${JSON.stringify(url)}, { type: "module" });` +
      `w.onmessage = (e) => { console.log(typeof globalThis.gc, e.data); w.terminate(); };`,
    ],
  }).output();
  assertEquals(new TextDecoder().decode(output.stdout).trim(), "function function");
});
