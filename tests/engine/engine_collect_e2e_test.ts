/**
 * End to end: a long `skiff run`, started as deno.json's task starts it
 * (with `--expose-gc`), collects garbage in its engine between turns
 * (lib/collect.ts, src/engine/loop/loop.ts). Without it V8 let the engine
 * Worker's heap double over 100 turns of 20 KB reads with one major
 * collection in the whole session (docs/performance.md, "Per turn and
 * memory"). A collection skiff asks for is the one V8 traces with the reason
 * "testing" (`--trace-gc`); V8's own collections give other reasons.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { MAIN, makeSandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";
import { runtimeFlags } from "../../scripts/compile.ts";

const TURNS = 50;

/** ~20 KB of lines, different for each file. */
function fileText(file: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 200; line++) {
    lines.push(`file ${file} line ${line}: "status": ok, {"latency_ms": ${line % 97}}`.padEnd(99));
  }
  return lines.join("\n");
}

async function runWithTrace(v8Flags: string[]) {
  const script: MockTurn[] = Array.from({ length: TURNS }, (_, index) => ({
    toolCalls: [{ name: "read", id: `c${index}`, arguments: { file_path: `data/f_${index}.txt` } }],
  }));
  const mock = startMockServer([...script, { text: "Done." }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await Deno.mkdir(path.join(sandbox.workspace, "data"));
    for (let file = 0; file < TURNS; file++) {
      await Deno.writeTextFile(
        path.join(sandbox.workspace, "data", `f_${file}.txt`),
        fileText(file),
      );
    }
    // A window large enough that nothing is compacted: the history grows all along.
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({ models: { "mock-model": { context: 4_000_000, output: 4_096 } } }),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...v8Flags, MAIN, "run", "--json", "-y", "Read every file under data/."],
      cwd: sandbox.workspace,
      env: sandbox.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr).slice(-800));
    assertEquals(mock.requests.length, TURNS + 1);
    return stdout.split("\n").filter((line) => /Mark-Compact/.test(line));
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

Deno.test("a long skiff run collects its engine's garbage as the heap grows, with deno.json's flags", async () => {
  const collections = await runWithTrace([...await runtimeFlags(), "--v8-flags=--trace-gc"]);
  const asked = collections.filter((line) => line.includes("testing"));
  assert(
    asked.length >= 1,
    `no collection asked for in ${TURNS} turns:\n${collections.join("\n")}`,
  );
});
