/**
 * `skiff run`, `skiff tool` and the chat read without commander (src/boot/engine_options.ts)
 * get exactly what commander's action would get: every command line here goes
 * through both, and whatever the short reader accepts, commander accepts with
 * the same arguments and options; everything else is left to commander.
 * The end-to-end checks show the plain forms run without commander's module
 * (poisoned by an import map) and the rest still get commander's help and errors.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, type Sandbox } from "../support/cli.ts";
import { poisonedImportMap, readsWithPoison, runPoisoned } from "../support/poisoned_imports.ts";
import { parseEngineCommand } from "../../src/boot/engine_options.ts";
import { buildProgram } from "../../src/cli/program.ts";

const LINES: string[][] = [
  ["tool", "read", '{"file_path":"a.txt"}'],
  ["tool"],
  ["tool", "read"],
  ["tool", "--dir", "/tmp/x", "read", "{}"],
  ["tool", "read", "{}", "--dir=/tmp/x"],
  ["tool", "--dir="],
  ["tool", "--sandbox", "read-only", "glob", '{"pattern":"*"}'],
  ["tool", "--sandbox=workspace-write"],
  ["tool", "--sandbox", "nowhere"],
  ["tool", "--sandbox-backend", "bwrap"],
  ["tool", "--sandbox-backend", "firejail"],
  ["tool", "--add-dir", "a", "--add-dir", "b", "--add-dir=c"],
  ["tool", "--allow", "bash(npm test *)", "--ask", "edit(*.lock)", "--deny", "webfetch"],
  ["tool", "--allow", "-x"],
  ["tool", "-y", "--trust-project", "--no-memory"],
  ["tool", "--yes", "--yes"],
  ["tool", "--yes=1"],
  ["tool", "-yq"],
  ["tool", "a", "b", "c"],
  ["tool", "--", "read"],
  ["tool", "--help"],
  ["tool", "-h"],
  ["tool", "--unknown"],
  ["tool", "--dir"],
  ["tool", "-"],
  ["run", "hello"],
  ["run"],
  ["run", "fix", "the", "failing", "test"],
  ["run", "--json", "--max-turns", "20", "make the tests pass"],
  ["run", "-m", "gpt-5", "--agent", "plan", "-c", "-q", "hi"],
  ["run", "--model=gpt-5", "--max-time", "60", "--max-cost", "0.5", "--max-tokens", "1000", "x"],
  ["run", "-s", "ses_1", "-o", "out.txt", "--summary", "s.md", "go"],
  ["run", "--until", "npm test", "--max-cycles", "2", "--protect", "tests/**", "x"],
  ["run", "--done", "--protect", "a", "--protect", "b", "x"],
  ["run", "hello", "--json"],
  ["run", "--session", "--json"],
  ["run", "--no-memory", "--sandbox", "full-access", "-y", "x"],
  ["run", "-mgpt", "x"],
  ["run", "--max-turns"],
  ["run", "-x"],
  ["run", "--", "-x"],
  ["run", "--help"],
  ["run", "--version"],
  ["run", "--no-json", "x"],
  ["run", "--sandbox", "nowhere", "x"],
  ["chat"],
  ["chat", "why", "does", "it", "fail?"],
  ["chat", "-m", "gpt-5", "--agent", "plan", "-c", "--sandbox", "read-only", "why?"],
  ["chat", "--reasoning-effort", "high", "--no-memory"],
  ["chat", "--resume"],
  ["chat", "--resume", "ses_1"],
  ["chat", "--json"],
  ["chat", "--help"],
  ["sessions", "list"],
  [],
  ["-c"],
  ["-m", "gpt-5", "--agent", "plan", "-y", "--add-dir", "../lib"],
  ["--model=gpt-5", "--trust-project", "--deny", "webfetch"],
  ["--continue", "--reasoning-effort", "low"],
  ["--resume"],
  ["--resume", "ses_1"],
  ["-p", "hi"],
  ["explain", "this"],
  ["-c", "explain this"],
  ["--max-turns", "3"],
  ["--help"],
  ["-V"],
  ["--sandbox", "nowhere"],
];

type Captured = { command: string; operands: unknown[]; options: Record<string, unknown> };

/** What commander's action for run or tool gets for `args`, or undefined when it does not run. */
async function byCommander(args: string[]): Promise<Captured | undefined> {
  let captured: Captured | undefined;
  const program = buildProgram(() => {});
  const silent = { writeOut: () => {}, writeErr: () => {} };
  program.configureOutput(silent);
  for (const command of program.commands) {
    command.configureOutput(silent);
    const name = command.name();
    if (name !== "run" && name !== "tool" && name !== "chat") {
      command.action(() => {});
      continue;
    }
    command.action((...received: unknown[]) => {
      const options = received.at(-2) as Record<string, unknown>;
      captured = { command: name, operands: received.slice(0, -2), options: { ...options } };
    });
  }
  // `skiff` alone is the chat: compared as `chat` with its first message.
  program.action((...received: unknown[]) => {
    const options = received.at(-2) as Record<string, unknown>;
    captured = { command: "chat", operands: received.slice(0, -2), options: { ...options } };
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } catch {
    return undefined; // help, a usage error
  }
  return captured;
}

Deno.test("what the short reader accepts, commander reads the same way", async () => {
  let accepted = 0;
  for (const args of LINES) {
    const parsed = parseEngineCommand(args);
    if (!parsed) continue;
    accepted++;
    const commander = await byCommander(args);
    assert(commander, `commander refused what the short reader accepted: ${args.join(" ")}`);
    const operands = parsed.command === "tool" ? [parsed.name, parsed.input] : [parsed.prompt];
    assertEquals(
      { command: parsed.command, operands, options: parsed.options },
      commander,
      args.join(" "),
    );
  }
  assert(accepted >= 33, `only ${accepted} lines took the short path`);
});

Deno.test("the lines a script or CI job writes take the short path", () => {
  for (
    const args of [
      ["tool", "read", '{"file_path":"a.txt"}'],
      ["tool", "--dir", "/w"],
      ["run", "hello"],
      ["run", "--json", "--max-turns", "20", "make the tests pass"],
      ["run", "--until", "npm test", "--protect", "tests/**", "make the tests pass"],
      [],
      ["-c"],
      ["chat", "--agent", "plan"],
    ]
  ) {
    assert(parseEngineCommand(args), args.join(" "));
  }
  for (
    const args of [
      ["run", "--help"],
      ["tool", "-h"],
      ["run", "-x"],
      ["tool", "--", "x"],
      ["--resume"],
      ["explain", "this"],
      ["-p", "hi"],
      ["sessions", "list"],
    ]
  ) {
    assertEquals(parseEngineCommand(args), undefined, args.join(" "));
  }
});

/** deno.json's import map with commander pointing at a module that throws when evaluated. */
async function commanderPoisoned(sandbox: Sandbox): Promise<string> {
  const file = await poisonedImportMap(sandbox.root, []);
  const map = JSON.parse(await Deno.readTextFile(file));
  const poison = path.join(sandbox.root, "poisoned_commander.js");
  await Deno.writeTextFile(
    poison,
    "export const Command = null, CommanderError = null, Option = null;\n" +
      'throw new Error("POISON: commander was evaluated");\n',
  );
  map.imports.commander = `file://${poison}`;
  await Deno.writeTextFile(file, JSON.stringify(map));
  return file;
}

Deno.test("skiff tool read, skiff run and the chat run without evaluating commander", async () => {
  const sandbox = await makeSandbox({ SKIFF_MODEL: "m", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  try {
    const map = await commanderPoisoned(sandbox);
    await readsWithPoison(sandbox, map);
    // A run whose endpoint does not answer: it gets as far as the model request (exit 4).
    const run = await runPoisoned(sandbox, map, ["run", "--max-time", "20", "hello"]);
    assertEquals(run.stderr.includes("POISON"), false, run.stderr);
    assertEquals(run.code, 4, run.stderr);
    // The chat's plain forms too: without a terminal they get as far as the chat's own refusal.
    for (const args of [[], ["-c", "--agent", "plan"], ["chat", "--sandbox", "read-only"]]) {
      const chat = await runPoisoned(sandbox, map, args);
      assertEquals(chat.stderr.includes("POISON"), false, chat.stderr);
      assertStringIncludes(chat.stderr, "the interactive session needs a terminal", args.join(" "));
      assertEquals(chat.code, 2, chat.stderr);
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("control: help, errors and other commands still go through commander", async () => {
  const sandbox = await makeSandbox();
  try {
    const map = await commanderPoisoned(sandbox);
    for (
      const args of [
        ["run", "--help"],
        ["tool", "--sandbox", "nowhere"],
        ["sessions", "list"],
        ["--resume"],
        ["explain", "this"],
      ]
    ) {
      const result = await runPoisoned(sandbox, map, args);
      assert(result.code !== 0, args.join(" "));
      assertStringIncludes(result.stderr, "POISON", args.join(" "));
    }
    const plain = await runPoisoned(sandbox, await poisonedImportMap(sandbox.root, []), [
      "tool",
      "--sandbox",
      "nowhere",
    ]);
    assertEquals(plain.code, 2, plain.stderr);
    assertStringIncludes(
      plain.stderr,
      "Allowed choices are read-only, workspace-write, full-access",
    );
  } finally {
    await sandbox.cleanup();
  }
});
