/**
 * The YAML library is evaluated only when a skill, agent or custom-command
 * file with frontmatter is parsed (src/definitions/frontmatter.ts,
 * docs/performance.md "Start-up"). Each check runs skiff, or a small script,
 * with an import map that points "yaml" at a stand-in that throws when
 * evaluated: a run that evaluates yaml fails. Controls prove the poison bites
 * where a file needs the parser, and unpoisoned runs prove such files still
 * load on every path (the engine's Worker, the terminal side, the chat's
 * custom commands).
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { MAIN, makeSandbox, runSkiff, withMockSandbox } from "../support/cli.ts";
import { startMockServer } from "../support/mock_server.ts";
import {
  type Output,
  poisonedImportMap,
  readsWithPoison,
  runPoisoned,
} from "../support/poisoned_imports.ts";

const ROOT = path.dirname(MAIN);

const SKILL =
  "---\nname: release\ndescription: Cut a release of the project\n---\nRun the steps.\n";
const AGENT =
  "---\ndescription: Reviews changes\nmode: primary\n---\nYou are the reviewer agent REVIEWER-PROMPT.\n";
const COMMAND = "---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix issue $1\n";

async function write(file: string, text: string): Promise<void> {
  await Deno.mkdir(path.dirname(file), { recursive: true });
  await Deno.writeTextFile(file, text);
}

async function output(command: Deno.Command): Promise<Output> {
  const result = await command.output();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    stdout: decoder.decode(result.stdout),
    stderr: decoder.decode(result.stderr),
  };
}

/** A script importing skiff's modules, in a fresh process (nothing loaded yet). */
async function runScript(dir: string, code: string, importMap?: string): Promise<Output> {
  const script = path.join(dir, `script_${crypto.randomUUID()}.ts`);
  await Deno.writeTextFile(script, code);
  return output(
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--no-prompt",
        ...(importMap ? ["--import-map", importMap] : ["--config", path.join(ROOT, "deno.json")]),
        script,
      ],
      cwd: dir,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }),
  );
}

const src = (module: string) => JSON.stringify(path.join(ROOT, "src", module));

Deno.test("skiff tool read never evaluates yaml without a skill, agent or command file with frontmatter", async () => {
  const sandbox = await makeSandbox();
  try {
    // A command file without frontmatter is all prompt: it needs no parser either.
    await write(path.join(sandbox.workspace, ".skiff", "commands", "plain.md"), "Say hi\n");
    await readsWithPoison(sandbox, await poisonedImportMap(sandbox.root, ["yaml"]));
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a one-shot skiff run without such files never evaluates yaml", async () => {
  const mock = startMockServer([{ text: "answer without yaml" }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    const map = await poisonedImportMap(sandbox.root, ["yaml"]);
    const result = await runPoisoned(sandbox, map, ["run", "hello"]);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "answer without yaml");
    assertEquals(mock.requests.length, 1);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("control: the poisoned yaml fails a run with a skill (in the Worker) or an agent file (terminal side)", async () => {
  const mock = startMockServer([{ text: "never seen" }, { text: "never seen" }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    const map = await poisonedImportMap(sandbox.root, ["yaml"]);
    const skill = path.join(sandbox.workspace, ".skiff", "skills", "release", "SKILL.md");
    await write(skill, SKILL);
    const withSkill = await runPoisoned(sandbox, map, ["run", "hello"]);
    assert(withSkill.code !== 0, "a run with a skill and yaml poisoned should fail");
    assertStringIncludes(withSkill.stderr, "POISON");
    await Deno.remove(skill);
    await write(path.join(sandbox.workspace, ".skiff", "agents", "reviewer.md"), AGENT);
    const withAgent = await runPoisoned(sandbox, map, ["run", "hello"]);
    assert(withAgent.code !== 0, "a run with an agent file and yaml poisoned should fail");
    assertStringIncludes(withAgent.stderr, "POISON");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("the async loaders evaluate yaml only when a file has frontmatter", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-lazy-yaml-" }));
  try {
    const map = await poisonedImportMap(dir, ["yaml"]);
    const workspace = path.join(dir, "work");
    await Deno.mkdir(path.join(workspace, ".git"), { recursive: true });
    await write(path.join(workspace, ".skiff", "commands", "plain.md"), "Say hi\n");
    const options = JSON.stringify({
      workspace,
      home: path.join(dir, "home"),
      configDir: path.join(dir, "config"),
    });
    const code = `
      import { loadAgentsAsync } from ${src("definitions/agents/load.ts")};
      import { loadSkillsAsync } from ${src("definitions/skills.ts")};
      import { loadCustomCommandsAsync } from ${src("definitions/commands.ts")};
      import { parseFrontmatter } from ${src("definitions/frontmatter.ts")};
      const options = ${options};
      const agents = await loadAgentsAsync(options);
      const skills = await loadSkillsAsync(options);
      const commands = await loadCustomCommandsAsync(options);
      console.log(JSON.stringify({
        agents: agents.agents.length,
        skills: skills.skills.length,
        commands: commands.commands.map((command) => command.name),
        body: parseFrontmatter("x.md", "no frontmatter here").body,
      }));
    `;
    const before = await runScript(dir, code, map);
    assertEquals(before.code, 0, before.stderr);
    const found = JSON.parse(before.stdout);
    assert(found.agents > 0, "the built-in agents are listed");
    assertEquals([found.skills, found.commands, found.body], [0, ["plain"], "no frontmatter here"]);
    // The same script with one command file with frontmatter does evaluate it.
    await write(path.join(workspace, ".skiff", "commands", "fix.md"), COMMAND);
    const after = await runScript(dir, code, map);
    assert(after.code !== 0, "a command file with frontmatter should load the poisoned yaml");
    assertStringIncludes(after.stderr, "POISON");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseFrontmatter before loadFrontmatterParser names the missing call; after it, it parses", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-lazy-yaml-" });
  try {
    const result = await runScript(
      dir,
      `
      import { loadFrontmatterParser, parseFrontmatter } from ${src("definitions/frontmatter.ts")};
      const text = "---\\ndescription: d\\n---\\nBody";
      try {
        parseFrontmatter("a.md", text);
        console.log("parsed without the parser");
      } catch (error) {
        console.log(error.name + ": " + error.message);
      }
      await loadFrontmatterParser();
      await loadFrontmatterParser();
      console.log(JSON.stringify(parseFrontmatter("a.md", text).data));
      `,
    );
    assertEquals(result.code, 0, result.stderr);
    const [refused, parsed] = result.stdout.trim().split("\n");
    assertStringIncludes(refused, "FrontmatterParserNotLoaded: internal error: a.md");
    assertStringIncludes(refused, "await loadFrontmatterParser()");
    assertEquals(parsed, '{"description":"d"}');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a skill with frontmatter, an agent file and a custom command still load, each on its own path", async () => {
  await withMockSandbox([{ text: "reviewed" }], async (sandbox, mock) => {
    await write(path.join(sandbox.workspace, ".skiff", "skills", "release", "SKILL.md"), SKILL);
    await write(path.join(sandbox.workspace, ".skiff", "agents", "reviewer.md"), AGENT);
    await write(path.join(sandbox.workspace, ".skiff", "commands", "fix.md"), COMMAND);
    // The agent file is parsed on the terminal side, the skill in the engine's Worker.
    const run = await runSkiff(["run", "--agent", "reviewer", "review it"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assertStringIncludes(run.stdout, "reviewed");
    const request = JSON.stringify(mock.requests[0]);
    assertStringIncludes(request, "REVIEWER-PROMPT");
    assertStringIncludes(request, "Cut a release of the project");
    // `skiff agents list` parses the agent files itself.
    const listed = await runSkiff(["agents", "list"], sandbox);
    assertEquals(listed.code, 0, listed.stderr);
    assertMatch(listed.stdout, /^reviewer\s+primary\s+Reviews changes/m);
    // The chat's custom commands (src/cli/chat/commands/mod.ts), in a fresh process.
    const chat = await runScript(
      sandbox.root,
      `
      import { chatCommands } from ${src("cli/chat/commands/mod.ts")};
      const spec = { workspace: ${JSON.stringify(sandbox.workspace)}, configDir: ${
        JSON.stringify(sandbox.configDir)
      } };
      const printed = [];
      const controls = { spec: () => spec, print: (text) => printed.push(text) };
      const commands = await chatCommands(controls, { home: ${JSON.stringify(sandbox.home)} });
      const fix = commands.get("fix");
      console.log(JSON.stringify({ description: fix?.description, notes: printed }));
      `,
    );
    assertEquals(chat.code, 0, chat.stderr);
    assertEquals(JSON.parse(chat.stdout), { description: "Fix an issue", notes: [] });
  });
});
