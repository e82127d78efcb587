/**
 * Agent and command files as Claude Code's plugins ship them: a one-line
 * `description:` carrying examples with colons and quotes (not strict YAML),
 * and `argument-hint: [name]` (a YAML list). The files here are our own
 * words in their shape.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { loadAgents } from "../../src/definitions/agents/load.ts";
import { loadCustomCommands } from "../../src/definitions/commands.ts";
import { loadFrontmatterParser, parseFrontmatter } from "../../src/definitions/frontmatter.ts";
import { PLUGIN_AGENT } from "../support/plugin_files.ts";

await loadFrontmatterParser();

function layout() {
  const root = Deno.makeTempDirSync({ prefix: "skiff-foreign-" });
  Deno.mkdirSync(path.join(root, ".git"));
  const workspace = path.join(root, "app");
  const home = path.join(root, "home");
  const configDir = path.join(home, ".config", "skiff");
  Deno.mkdirSync(workspace, { recursive: true });
  return { root, workspace, home, configDir };
}

function write(file: string, text: string): void {
  Deno.mkdirSync(path.dirname(file), { recursive: true });
  Deno.writeTextFileSync(file, text);
}

Deno.test("a plugin agent whose description is not strict YAML loads, with no warning", () => {
  const { root, workspace, home, configDir } = layout();
  try {
    write(path.join(root, ".claude", "agents", "tidy-checker.md"), PLUGIN_AGENT);
    const { agents, warnings } = loadAgents({ workspace, configDir, home });
    const agent = agents.find((candidate) => candidate.name === "tidy-checker");
    assert.ok(agent, `loaded; warnings: ${warnings.join("\n")}`);
    assert.match(agent.description, /^Use this agent when a change is finished/);
    assert.match(agent.description, /user: "I wrote the tokenizer, check it" assistant: "I'll use/);
    assert.deepEqual(agent.tools, { "*": false, glob: true, grep: true, read: true });
    assert.equal(agent.model, undefined, "sonnet means the session's model");
    assert.equal(agent.prompt, "You look for leftover debug output and unclear names.");
    assert.deepEqual(warnings.filter((line) => line.includes("tidy-checker")).length, 1);
    assert.match(warnings.join("\n"), /model "sonnet" is not a model id/);
    assert.ok(!warnings.join("\n").includes("invalid YAML"));
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("the lenient reading: continuation lines, lists and numbers keep their YAML meaning, lines of keys", () => {
  const text = [
    "---",
    "description: Reviews a change: style, tests",
    "  and naming, then says what to fix",
    "temperature: 0.3",
    "tools:",
    "  - Read",
    "  - Grep",
    "permission: {edit: deny}",
    "---",
    "Body.",
  ].join("\n");
  const parsed = parseFrontmatter("r.md", text);
  assert.deepEqual(parsed.data, {
    description: "Reviews a change: style, tests\nand naming, then says what to fix",
    temperature: 0.3,
    tools: ["Read", "Grep"],
    permission: { edit: "deny" },
  });
  assert.equal(parsed.body, "Body.");
  assert.equal(parsed.lineOf("temperature"), 4);
  assert.equal(parsed.lineOf("permission"), 8);
});

Deno.test("an unclosed quote or bracket is still an error, named with its line", () => {
  for (const value of ['"unterminated text', "[primary", "{edit: deny"]) {
    assert.throws(
      () => parseFrontmatter("x.md", `---\ndescription: ok\nmode: ${value}\n---\nbody`),
      (error: Error) => /^x\.md:[34]: invalid YAML/.test(error.message),
      value,
    );
  }
  assert.throws(
    () => parseFrontmatter("y.md", "---\njust words: here: and: there\n---\nbody"),
    /invalid YAML/,
    "text before any key is not read",
  );
});

Deno.test("argument-hint written as a YAML list, and as several bracketed words, keeps the command", () => {
  const { root, workspace, home, configDir } = layout();
  try {
    write(
      path.join(workspace, ".claude/commands/new-project.md"),
      "---\ndescription: Start a project\nargument-hint: [project-name]\n---\nCreate $1.",
    );
    write(
      path.join(workspace, ".claude/commands/triage.md"),
      "---\nargument-hint: [issue-number] [priority]\ndescription: Triage an issue\n---\nTriage $1 as $2.",
    );
    const { commands, warnings } = loadCustomCommands({ workspace, configDir, home });
    assert.deepEqual(warnings, []);
    const byName = new Map(commands.map((command) => [command.name, command]));
    assert.equal(byName.get("new-project")?.argumentHint, "[project-name]");
    assert.equal(byName.get("triage")?.argumentHint, "[issue-number] [priority]");
    assert.equal(byName.get("triage")?.description, "Triage an issue");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a non-strict agent file of an untrusted project grants nothing; trusted, its allow applies (control)", () => {
  const { root, workspace, home, configDir } = layout();
  try {
    // Not strict YAML (a colon and quotes in the description), with an allow rule below it.
    write(
      path.join(workspace, ".claude", "agents", "sly.md"),
      '---\ndescription: Helps: "really" helps\npermission: {bash: allow}\n---\nbody\n',
    );
    const loaded = (untrustedProject: boolean) =>
      loadAgents({ workspace, configDir, home, untrustedProject }).agents.find((agent) =>
        agent.name === "sly"
      );
    assert.deepEqual(loaded(false)?.permission, { bash: "allow" }, "the lenient reading reads it");
    assert.notDeepEqual(loaded(true)?.permission, { bash: "allow" });
    assert.ok(!JSON.stringify(loaded(true)?.permission ?? {}).includes("allow"));
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
