/**
 * Agents are resolved once per run, by `prepare()` in the host: each agent
 * file is read once, the project-trust rules are applied there, and the
 * Worker's permissions, the session and its subagents all use that list. A
 * file that changes or disappears after start-up cannot give one part of the
 * run a different agent than another.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { prepare } from "../../src/host/setup.ts";
import { engineNetHosts, permissionsFor } from "../../src/host/worker_client.ts";
import { Engine } from "../../src/engine/engine.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import type { ChatProvider, ChatRequest } from "../../src/provider/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import { openStore } from "../../src/store/store.ts";
import { OUTCOME_EXIT_CODES } from "../../src/cli/exit_codes.ts";
import { homeDir } from "../../src/sandbox/paths.ts";

const REVIEWER = "---\ndescription: Reviews\nmode: primary\npermission:\n" +
  '  bash:\n    "git *": allow\n  webfetch: allow\n---\nREVIEWER-PROMPT\n';
const HELPER = "---\ndescription: Helps\nmode: subagent\n---\nHELPER-PROMPT\n";

interface Layout {
  root: string;
  workspace: string;
  configDir: string;
  dataDir: string;
  reviewer: string;
  helper: string;
}

/** A git workspace shipping two agent files, and its own config folder for the run. */
async function withLayout(work: (layout: Layout) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-agents-once-" }));
  const workspace = path.join(root, "repo");
  const configDir = path.join(root, "config");
  const dataDir = path.join(root, "data");
  const agents = path.join(workspace, ".skiff", "agents");
  await Deno.mkdir(path.join(workspace, ".git"), { recursive: true });
  await Deno.mkdir(agents, { recursive: true });
  await Deno.mkdir(configDir);
  const reviewer = path.join(agents, "reviewer.md");
  const helper = path.join(agents, "helper.md");
  await Deno.writeTextFile(reviewer, REVIEWER);
  await Deno.writeTextFile(helper, HELPER);
  const saved = Deno.env.get("SKIFF_CONFIG_DIR");
  Deno.env.set("SKIFF_CONFIG_DIR", configDir);
  try {
    await work({ root, workspace, configDir, dataDir, reviewer, helper });
  } finally {
    if (saved === undefined) Deno.env.delete("SKIFF_CONFIG_DIR");
    else Deno.env.set("SKIFF_CONFIG_DIR", saved);
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("prepare reads each agent file once and hands the resolved agents to the Worker as data", async () => {
  await withLayout(async ({ workspace, reviewer, helper }) => {
    const reads: string[] = [];
    const readAgentFile = (file: string) => {
      reads.push(file);
      return Deno.readTextFileSync(file);
    };
    const { spec } = await prepare({ dir: workspace, agent: "reviewer" }, false, undefined, {
      readAgentFile,
    });
    assertEquals(reads.filter((file) => file === reviewer).length, 1);
    assertEquals(reads.filter((file) => file === helper).length, 1);
    assertEquals(new Set(reads).size, reads.length, "no agent file is read twice");
    const agents = spec.resolvedAgents?.agents ?? [];
    const names = agents.map((agent) => agent.name);
    for (const name of ["build", "plan", "general", "explore", "reviewer", "helper"]) {
      assert(names.includes(name), `${name} is in the list: ${names.join(", ")}`);
    }
    // Untrusted project: its agent file's allow rules are dropped once, here.
    assertEquals(agents.find((agent) => agent.name === "reviewer")?.permission, {});
    assertEquals(spec.projectTrusted, false);
    assertStringIncludes(spec.warnings.join("\n"), "reviewer.md");
    // It crosses into the Worker as it is.
    assertEquals(structuredClone(spec.resolvedAgents), spec.resolvedAgents);
  });
});

Deno.test("a trusted project keeps its agent files' allow rules in the resolved list", async () => {
  await withLayout(async ({ workspace }) => {
    const { spec } = await prepare({ dir: workspace, trustProject: true }, false);
    const reviewer = spec.resolvedAgents?.agents.find((agent) => agent.name === "reviewer");
    assertEquals(reviewer?.permission, { bash: { "git *": "allow" }, webfetch: "allow" });
  });
});

Deno.test("the Worker's network comes from the resolved agents, not from the files read again", async () => {
  await withLayout(async ({ workspace, reviewer }) => {
    const options = { dir: workspace };
    const untrusted = (await prepare(options, false)).spec;
    const trusted = (await prepare({ ...options, trustProject: true }, false)).spec;
    await Deno.remove(reviewer);
    // The dropped `webfetch: allow` opens nothing; the trusted one still does with the file gone.
    assert(engineNetHosts(untrusted) !== true, "an untrusted project's allow opens no network");
    assertEquals(engineNetHosts(trusted), true);
  });
});

Deno.test("the Worker may no longer read the user's agent folders, only their skill folders", () => {
  const read = (permissionsFor({
    workspace: "/work/project",
    dataDir: "/tmp/skiff-data",
    configDir: "/tmp/skiff-config",
    settings: {},
    permissionLayers: [],
    model: "m",
    agent: "build",
    depth: 0,
    inheritedPermission: [],
    owns: [],
    mcp: { enabled: false, env: {}, blocked: [] },
    sandbox: { mode: "workspace-write", network: false, addDirs: [], env: [] },
    flags: { allow: [], ask: [], deny: [], yes: false },
    warnings: [],
    interactive: false,
    provider: { baseURL: "http://127.0.0.1:1/v1", apiKey: "k" },
  }).read ?? []) as string[];
  const home = homeDir();
  for (const gone of [".claude", ".agents", ".config/opencode", ".claude/agents"]) {
    assertEquals(read.includes(path.join(home, gone)), false, `${gone} is not granted`);
  }
  assert(read.includes(path.join(home, ".claude", "skills")));
  assert(read.includes(path.join(home, ".agents", "skills")));
});

/**
 * The parent calls the task tool for `helper` once; each session answers
 * after that. Records every request's system prompt.
 */
function scriptedProvider(systems: string[]): ChatProvider {
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  return {
    baseURL: "http://mock",
    stream: (request: ChatRequest) => {
      const system = JSON.stringify(request.messages[0]);
      systems.push(system);
      const answered = request.messages.some((message) => message.role === "tool");
      if (system.includes("REVIEWER-PROMPT") && !answered) {
        const args = { description: "look", prompt: "look around", subagent_type: "helper" };
        return Promise.resolve({
          text: "",
          toolCalls: [{ id: "t1", name: "task", arguments: JSON.stringify(args) }],
          finishReason: "tool_calls",
          usage,
        });
      }
      return Promise.resolve({ text: "done", toolCalls: [], finishReason: "stop", usage });
    },
  };
}

Deno.test("the session and its subagent run the agents of the spec, with their files gone", async () => {
  await withLayout(async ({ workspace, dataDir, reviewer, helper }) => {
    const prepared = await prepare({ dir: workspace, agent: "reviewer", model: "m" }, false);
    const spec: EngineSpec = {
      ...prepared.spec,
      dataDir,
      sandbox: { ...prepared.spec.sandbox, mode: "read-only" },
    };
    // Read again, they would be gone: "no agent named reviewer", and no helper subagent.
    await Deno.remove(reviewer);
    await Deno.remove(helper);
    const store = openStore(dataDir);
    const events: SkiffEvent[] = [];
    const systems: string[] = [];
    const engine = new Engine(
      spec,
      { event: (event) => events.push(event), ask: () => Promise.resolve("deny") },
      store,
      scriptedProvider(systems),
    );
    try {
      await engine.open();
      const result = await engine.run({ prompt: "go", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 4 });
      assertEquals(result.outcome, "completed");
      assert(systems.some((system) => system.includes("REVIEWER-PROMPT")), "the parent ran");
      assert(systems.some((system) => system.includes("HELPER-PROMPT")), "the subagent ran");
      const task = events.find((event) => event.type === "tool.completed");
      assertStringIncludes(JSON.stringify(task), "task_result");
    } finally {
      await engine.close();
      store.close();
    }
  });
});
