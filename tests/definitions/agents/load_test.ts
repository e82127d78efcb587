import assert from "node:assert/strict";
import * as path from "node:path";
import { loadAgents } from "../../../src/definitions/agents/load.ts";
import { loadFrontmatterParser } from "../../../src/definitions/frontmatter.ts";

// The synchronous loaders parse frontmatter with a parser loaded beforehand (src/definitions/frontmatter.ts).
await loadFrontmatterParser();

/** A git repo with a nested workspace, a fake home and a config folder. */
function layout(): { root: string; workspace: string; home: string; configDir: string } {
  const root = Deno.makeTempDirSync({ prefix: "skiff-agents-" });
  Deno.mkdirSync(path.join(root, ".git"));
  const workspace = path.join(root, "packages", "app");
  Deno.mkdirSync(workspace, { recursive: true });
  const home = path.join(root, "home");
  const configDir = path.join(home, "skiff-config");
  Deno.mkdirSync(configDir, { recursive: true });
  return { root, workspace, home, configDir };
}

function write(file: string, text: string): void {
  Deno.mkdirSync(path.dirname(file), { recursive: true });
  Deno.writeTextFileSync(file, text);
}

Deno.test("agents load from all four kinds of folder, file name is the agent name", () => {
  const { root, workspace, home, configDir } = layout();
  write(
    path.join(configDir, "agents", "reviewer.md"),
    "---\ndescription: Reviews diffs\nmode: subagent\ntemperature: 0.2\nmax_turns: 7\n---\nYou review code.\n",
  );
  write(
    path.join(workspace, ".skiff", "agents", "docs.md"),
    '---\ndescription: Writes docs\nmode: primary\nmodel: gpt-4.1\ntools:\n  bash: false\n  "mcp_*": false\n---\nWrite docs.\n',
  );
  write(
    path.join(root, ".claude", "agents", "tester.md"),
    "---\nname: tester\ndescription: Runs tests\ntools: Read, Grep, Bash, mcp__github__get_issue\nmodel: sonnet\ncolor: blue\n---\nRun the tests.\n",
  );
  write(
    path.join(workspace, ".opencode", "agent", "security.md"),
    '---\ndescription: Audits\nmode: subagent\npermission:\n  edit: deny\n  bash:\n    "*": ask\n    "git log *": allow\n---\nAudit.\n',
  );
  write(
    path.join(workspace, ".opencode", "agents", "ops.md"),
    "\uFEFF---\r\ndescription: Ops\r\nmode: primary\r\n---\r\nOps.\r\n",
  );
  const { agents, warnings } = loadAgents({ workspace, configDir, home });
  const byName = new Map(agents.map((agent) => [agent.name, agent]));

  const reviewer = byName.get("reviewer")!;
  assert.deepEqual(reviewer.mode, "subagent");
  assert.deepEqual(reviewer.temperature, 0.2);
  assert.deepEqual(reviewer.maxTurns, 7);
  assert.deepEqual(reviewer.prompt, "You review code.");

  const docs = byName.get("docs")!;
  assert.deepEqual(docs.model, "gpt-4.1");
  assert.deepEqual(docs.tools, { bash: false, "mcp_*": false });

  const tester = byName.get("tester")!;
  assert.deepEqual(tester.tools, {
    "*": false,
    read: true,
    grep: true,
    bash: true,
    github_get_issue: true,
  });
  assert.deepEqual(
    tester.model,
    undefined,
    "an alias like 'sonnet' falls back to the session model",
  );
  assert.deepEqual(tester.mode, "all");
  assert.ok(warnings.some((line) => line.includes("tester.md:") && line.includes("sonnet")));

  assert.deepEqual(byName.get("security")!.permission, {
    edit: "deny",
    bash: { "*": "ask", "git log *": "allow" },
  });
  const ops = byName.get("ops")!;
  assert.deepEqual(
    [ops.description, ops.mode, ops.prompt],
    ["Ops", "primary", "Ops."],
    "BOM and CRLF",
  );
  for (const builtin of ["build", "plan", "general", "explore"]) assert.ok(byName.has(builtin));
});

Deno.test("frontmatter errors are reported with file and line, and the agent is skipped", () => {
  const { workspace, home, configDir } = layout();
  const badYaml = path.join(workspace, ".skiff", "agents", "broken.md");
  write(badYaml, "---\ndescription: fine\nmode: [primary\n---\nbody\n");
  const badMode = path.join(workspace, ".skiff", "agents", "wrongmode.md");
  write(badMode, "---\ndescription: fine\n\nmode: sometimes\n---\nbody\n");
  const unclosed = path.join(workspace, ".skiff", "agents", "unclosed.md");
  write(unclosed, "---\ndescription: never closed\n");
  const { agents, warnings } = loadAgents({ workspace, configDir, home });
  const names = agents.map((agent) => agent.name);
  assert.ok(
    !names.includes("broken") && !names.includes("wrongmode") && !names.includes("unclosed"),
  );
  const yamlWarning = warnings.find((line) => line.startsWith(badYaml))!;
  assert.match(yamlWarning, /broken\.md:[34]: invalid YAML/);
  const modeWarning = warnings.find((line) => line.startsWith(badMode))!;
  assert.match(modeWarning, /wrongmode\.md:4: mode must be one of primary, subagent, all/);
  assert.ok(warnings.some((line) => line.startsWith(`${unclosed}:1:`)));
});

Deno.test("nearer definitions layer over farther ones and over built-ins", () => {
  const { root, workspace, home, configDir } = layout();
  write(
    path.join(root, ".skiff", "agents", "shared.md"),
    "---\ndescription: root\n---\nroot prompt",
  );
  write(path.join(workspace, ".skiff", "agents", "shared.md"), "---\ndescription: near\n---\n");
  write(path.join(workspace, ".skiff", "agents", "plan.md"), "---\nmodel: small-model\n---\n");
  const { agents } = loadAgents({
    workspace,
    configDir,
    home,
    configAgents: {
      explore: { model: "fast-model" },
      helper: { description: "From config", prompt: "Help.", mode: "subagent" },
      general: { disable: true },
    },
  });
  const byName = new Map(agents.map((agent) => [agent.name, agent]));
  assert.deepEqual(byName.get("shared")!.description, "near");
  assert.deepEqual(byName.get("shared")!.prompt, "root prompt", "an empty body keeps the prompt");
  const plan = byName.get("plan")!;
  assert.deepEqual(plan.model, "small-model");
  assert.deepEqual(plan.tools.edit, false, "a user override keeps plan read-only");
  assert.deepEqual(byName.get("explore")!.model, "fast-model");
  assert.deepEqual(byName.get("helper")!.source, "config");
  assert.deepEqual(byName.get("helper")!.mode, "subagent");
  assert.ok(!byName.has("general"));
});

Deno.test("the global folder honours the configDir given (SKIFF_CONFIG_DIR)", () => {
  const { workspace, home } = layout();
  const custom = Deno.makeTempDirSync();
  write(path.join(custom, "agents", "mine.md"), "---\ndescription: mine\n---\nhi");
  const previous = Deno.env.get("SKIFF_CONFIG_DIR");
  Deno.env.set("SKIFF_CONFIG_DIR", custom);
  try {
    const { agents } = loadAgents({ workspace, home });
    assert.ok(agents.some((agent) => agent.name === "mine"));
  } finally {
    if (previous === undefined) Deno.env.delete("SKIFF_CONFIG_DIR");
    else Deno.env.set("SKIFF_CONFIG_DIR", previous);
  }
});

Deno.test("a bad config agent is skipped with a warning naming it", () => {
  const { workspace, home, configDir } = layout();
  const { agents, warnings } = loadAgents({
    workspace,
    configDir,
    home,
    configAgents: { hot: { description: "x", temperature: 9 } },
  });
  assert.ok(!agents.some((agent) => agent.name === "hot"));
  assert.match(
    warnings.join("\n"),
    /agent "hot" skipped: temperature must be a number from 0 to 2/,
  );
});
