/**
 * The likely command's module starts loading before the command line is
 * parsed (src/cli/command_loader.ts): which arguments start it, that the
 * command then gets that very load, that help never evaluates a command's
 * module, and that a module failing to load is reported once, as before.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, type Sandbox } from "../support/cli.ts";
import { poisonedImportMap, readsWithPoison, runPoisoned } from "../support/poisoned_imports.ts";
import {
  likelyCommandModule,
  loadCommandModule,
  preloadCommandModule,
} from "../../src/cli/command_loader.ts";
import { LAZY_LOADED_MODULES } from "../../src/boot/lazy_modules.ts";

Deno.test("the arguments that start a command's module early", () => {
  assertEquals(likelyCommandModule(["run", "fix the test"]), "./run/run.ts");
  assertEquals(likelyCommandModule(["tool", "read", "{}"]), "./tool.ts");
  assertEquals(likelyCommandModule(["chat"]), "./chat/chat.ts");
  assertEquals(likelyCommandModule([]), "./chat/chat.ts");
  assertEquals(likelyCommandModule(["-c"]), "./chat/chat.ts");
  assertEquals(likelyCommandModule(["--resume", "abc"]), "./chat/chat.ts");
  for (
    const args of [
      ["run", "--help"],
      ["tool", "-h"],
      ["--version"],
      ["help", "run"],
      ["sessions", "list"],
      ["undo"],
    ]
  ) {
    assertEquals(likelyCommandModule(args), undefined, args.join(" "));
  }
});

Deno.test("each module started early is one the lazy list names, as the command loads it", () => {
  for (const args of [["run", "x"], ["tool", "read", "{}"], ["chat"]]) {
    const module = likelyCommandModule(args)!;
    const fromRoot = `src/cli/${module.slice(2)}`;
    assertEquals(
      (LAZY_LOADED_MODULES as readonly string[]).includes(fromRoot),
      true,
      `${fromRoot} is not in src/boot/lazy_modules.ts`,
    );
  }
});

Deno.test("the command gets the module whose load was started early", async () => {
  preloadCommandModule(["tool", "read", "{}"]);
  const module = await loadCommandModule<typeof import("../../src/cli/tool.ts")>("./tool.ts");
  assertEquals(typeof module.toolCommand, "function");
  assertEquals(typeof module.parseCallLine, "function");
});

/** deno.json's import map with `modules` (paths under src/cli) pointing at modules that throw. */
async function commandsPoisoned(sandbox: Sandbox, modules: string[]): Promise<string> {
  const file = await poisonedImportMap(sandbox.root, []);
  const map = JSON.parse(await Deno.readTextFile(file));
  for (const module of modules) {
    const poison = path.join(sandbox.root, `poisoned_${module}.js`);
    await Deno.writeTextFile(poison, `throw new Error("POISON: ${module} was evaluated");\n`);
    map.imports[new URL(`../../src/cli/${module}`, import.meta.url).href] = `file://${poison}`;
  }
  await Deno.writeTextFile(file, JSON.stringify(map));
  return file;
}

Deno.test("help for run and tool evaluates neither command's module", async () => {
  const sandbox = await makeSandbox();
  try {
    const map = await commandsPoisoned(sandbox, ["run.ts", "tool.ts"]);
    for (const command of ["run", "tool"]) {
      const result = await runPoisoned(sandbox, map, [command, "--help"]);
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(result.stdout, `Usage: skiff ${command}`);
      assertEquals(result.stderr.includes("POISON"), false, result.stderr);
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a command module that fails to load is reported once, with exit 1", async () => {
  const sandbox = await makeSandbox();
  try {
    const map = await commandsPoisoned(sandbox, ["tool.ts"]);
    const result = await runPoisoned(sandbox, map, ["tool", "read", '{"file_path":"a"}']);
    assertEquals(result.code, 1, result.stderr);
    assertEquals(result.stderr.split("POISON: tool.ts was evaluated").length - 1, 1, result.stderr);
    // A usage error still wins over the early load, whatever that load did.
    const usage = await runPoisoned(sandbox, map, ["tool", "--sandbox", "nowhere"]);
    assertEquals(usage.code, 2, usage.stderr);
    assertStringIncludes(usage.stderr, "nowhere");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff tool read works end to end with the early load", async () => {
  const sandbox = await makeSandbox();
  try {
    await readsWithPoison(sandbox, await poisonedImportMap(sandbox.root, []));
  } finally {
    await sandbox.cleanup();
  }
});
