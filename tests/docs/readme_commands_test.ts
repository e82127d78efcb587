/**
 * The commands people copy: every `skiff …` line of README.md's shell
 * blocks, and every example in each command's `--help`, parses with skiff's
 * own command line (no command runs: each action is a no-op here); README's
 * command table names every command; and every command's help has examples.
 */
import type { Command } from "commander";
import { assert, assertEquals } from "../support/assert.ts";
import { buildProgram } from "../../src/cli/program.ts";
import { shellWords } from "../../src/permission/shell/bash_split.ts";

const README = new URL("../../README.md", import.meta.url);

/** The program with every action a no-op and its output kept, each error thrown. */
function quietProgram(): { program: Command; errors: () => string } {
  const program = buildProgram(() => {});
  let errors = "";
  const quiet = (command: Command) => {
    command.exitOverride().configureOutput({
      writeOut: () => {},
      writeErr: (text) => errors += text,
    });
    command.action(() => {});
    for (const sub of command.commands) quiet(sub);
  };
  quiet(program);
  return { program, errors: () => errors };
}

/** Why `line` (a shell line holding a skiff command) does not parse, or undefined when it does. */
async function parseProblem(line: string): Promise<string | undefined> {
  // From the skiff word on, before a redirection or a comment; leading VAR=value words dropped.
  const from = line.slice(line.search(/(^|\s)skiff\s|(^|\s)skiff$/)).trim();
  const command = from.split(/\s+#\s/)[0].split(/\s+(?:>|2>|\|)\s/)[0];
  const words = shellWords(command);
  assertEquals(words[0], "skiff", line);
  const { program, errors } = quietProgram();
  try {
    await program.parseAsync(words.slice(1), { from: "user" });
    return undefined;
  } catch (error) {
    // --version and --help end the parse on purpose, with exit code 0.
    if ((error as { exitCode?: number }).exitCode === 0) return undefined;
    return `${line}\n  → ${(error as Error).message} ${errors()}`;
  }
}

/** The lines of README's sh blocks that run skiff (continuation lines joined). */
async function readmeCommands(): Promise<string[]> {
  const text = await Deno.readTextFile(README);
  const lines: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1].replace(/\\\n\s*/g, " ");
    for (const line of joined.split("\n")) {
      const bare = line.replace(/^deno task (?=skiff\b)/, "");
      if (/(^|[|;&]\s*|^\w+=\S+\s+)skiff\b/.test(bare)) lines.push(bare);
    }
  }
  return lines;
}

/** Each command by its path, with its whole help text. */
function helpTexts(): [string, string][] {
  const { program } = quietProgram();
  const found: [string, string][] = [];
  const walk = (command: Command, path: string[]) => {
    let text = "";
    command.configureOutput({ writeOut: (part) => text += part, writeErr: () => {} });
    command.outputHelp();
    found.push([path.join(" ") || "(skiff)", text]);
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return found;
}

Deno.test("README: every skiff command in its shell blocks parses", async () => {
  const lines = await readmeCommands();
  assert(lines.length >= 8, `only ${lines.length} commands found in README.md`);
  const problems = (await Promise.all(lines.map(parseProblem))).filter(Boolean);
  assertEquals(problems, [], problems.join("\n"));
});

Deno.test("README: the command table names every command", async () => {
  const text = await Deno.readTextFile(README);
  const table = text.slice(text.indexOf("## Commands"), text.indexOf("## Exit codes"));
  const { program } = quietProgram();
  const missing = program.commands.map((command) => command.name())
    .filter((name) => !table.includes(`\`skiff ${name}`));
  assertEquals(missing, [], `README's command table leaves out: ${missing.join(", ")}`);
});

Deno.test("every command's --help has examples, and each example parses", async () => {
  const problems: string[] = [];
  for (const [path, text] of helpTexts()) {
    const examples = text.split("\nExamples:\n").slice(1).flatMap((part) =>
      part.replace(/\\\n\s*/g, " ").split("\n").filter((line) => line.startsWith("  ")).map((
        line,
      ) => line.trim())
    ).filter((line) => /(^|[|]\s*|^\w+=\S+\s+)skiff\b/.test(line));
    if (!examples.length) problems.push(`${path}: no examples in --help`);
    for (const example of examples) {
      const problem = await parseProblem(example);
      if (problem) problems.push(`${path}: ${problem}`);
    }
  }
  assertEquals(problems, [], problems.join("\n"));
});

Deno.test("the parse check itself: a wrong flag, a wrong choice and an unknown command are caught", async () => {
  for (
    const wrong of [
      "skiff run --no-such-flag x",
      "skiff run --sandbox nowhere x",
      "skiff sessions frobnicate",
    ]
  ) {
    assert(await parseProblem(wrong), `${wrong} parsed`);
  }
});
