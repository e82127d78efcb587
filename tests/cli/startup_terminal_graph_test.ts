/**
 * What the terminal side evaluates before the engine starts: the modules
 * statically imported from main.ts, the CLI and the command's module (a
 * written-out `import()` is loaded with the graph but evaluated only when it
 * runs, so it is left out). zod, the config schema and the verification gate
 * are evaluated by the engine's Worker, not on this side, for `skiff tool`
 * and `skiff run` (docs/performance.md, "Start-up"); the packages no command
 * needs before its engine starts are not reached either.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { MAIN } from "../support/cli.ts";

const ROOT = path.dirname(MAIN);

interface GraphModule {
  specifier: string;
  dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
}

/** Every module `roots` import statically (npm packages and node: modules as leaves). */
async function staticGraph(roots: string[]): Promise<Set<string>> {
  const modules = new Map<string, GraphModule>();
  for (const root of roots) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", path.join(ROOT, root)],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(output.success, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: GraphModule[] };
    for (const module of info.modules) modules.set(module.specifier, module);
  }
  const reached = new Set<string>();
  const pending = roots.map((root) => new URL(`file://${path.join(ROOT, root)}`).href);
  while (pending.length) {
    const specifier = pending.pop()!;
    if (reached.has(specifier)) continue;
    reached.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target && !dependency.isDynamic) pending.push(target);
    }
  }
  return new Set(
    [...reached].map((specifier) => specifier.replace(/^file:\/\/.*?\/src\//, "src/")),
  );
}

/** The terminal side of `command`: the entry point, the CLI, its parser and the command's module. */
const terminalSide = (command: string) =>
  staticGraph(["main.ts", "src/cli/main.ts", "src/cli/program.ts", `src/cli/${command}.ts`]);

const NOT_BEFORE_THE_ENGINE = [
  "npm:zod",
  "npm:openai",
  "npm:@modelcontextprotocol",
  "npm:@clack/prompts",
  "npm:yaml",
  "src/config/schema.ts",
  "src/engine/verify/verify.ts",
  "src/tools/process/bash.ts",
];

for (const command of ["tool", "run"]) {
  Deno.test(`skiff ${command}: the terminal side evaluates neither zod nor the gate`, async () => {
    const graph = await terminalSide(command);
    assert(graph.has(`src/cli/${command}.ts`), [...graph].join("\n"));
    const found = [...graph].filter((module) =>
      NOT_BEFORE_THE_ENGINE.some((name) => module.startsWith(name))
    );
    assertEquals(found, []);
  });
}

Deno.test("control: the walk finds zod behind the schema and the bash tool behind the gate", async () => {
  const schema = await staticGraph(["src/config/schema.ts"]);
  assert([...schema].some((module) => module.startsWith("npm:zod")), "zod not found");
  const gate = await staticGraph(["src/engine/verify/verify.ts"]);
  assert(gate.has("src/tools/process/bash.ts"), "bash.ts not found");
});
