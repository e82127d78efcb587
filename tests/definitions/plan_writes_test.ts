/**
 * The read-only plan agent against every tool skiff has: the test walks the
 * registry, declares a call of each tool that would change the workspace
 * (or only look, for tools that cannot write), and judges it with plan's
 * rules the way a `--yes` run does (an ask is then allowed). A call that
 * declares writes, or a command that writes, must be denied outright, and its
 * key must be one of `WRITING_KEYS`, which plan's rules are derived from —
 * so a new writing tool cannot slip past plan. A tool with no sample here
 * fails the test until one is added.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { builtinAgents } from "../../src/definitions/agents/builtin.ts";
import { WRITING_KEYS } from "../../src/config/permission_keys.ts";
import { evaluate } from "../../src/permission/evaluate.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import type { PermissionConfig } from "../../src/permission/rules.ts";
import { builtinTools, parseToolInput } from "../../src/tools/registry.ts";
import type { ToolContext } from "../../src/tools/tool.ts";

/** For each built-in tool, a call that changes the workspace if the tool can. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  bash: { command: "rm a.txt" },
  process: { id: "bg1", action: "stop" },
  read: { file_path: "a.txt" },
  write: { file_path: "new.txt", content: "x" },
  edit: { file_path: "a.txt", old_string: "alpha", new_string: "beta" },
  apply_patch: { patch: "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch" },
  file_copy: { source: "a.txt", destination: "copy.txt" },
  file_delete: { file_path: "a.txt" },
  glob: { pattern: "*.txt" },
  grep: { pattern: "alpha" },
  symbol: { name: "alpha" },
  list: {},
  todowrite: { todos: [{ content: "plan it", status: "pending", priority: "high" }] },
  todoread: {},
  webfetch: { url: "https://example.com/", format: "text" },
};

/** Commands a `--yes` plan run would otherwise run, each one writing. */
const WRITING_COMMANDS = ["rm a.txt", "cp a.txt b.txt", "sed -i s/a/b/ a.txt", "echo x > a.txt"];

Deno.test("plan denies every call of every tool that would change the workspace, under --yes", async () => {
  const plan = builtinAgents().find((agent) => agent.name === "plan")!;
  const layers = buildLayers({ agent: plan.permission as PermissionConfig });
  const workspace = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-plan-" }));
  try {
    Deno.writeTextFileSync(path.join(workspace, "a.txt"), "alpha\n");
    const ctx = { workspace, extraDirs: [], sessionId: "s", callId: "c" } as unknown as ToolContext;
    const tools = builtinTools();
    const missing = tools.map((tool) => tool.name).filter((name) => !(name in SAMPLES));
    assertEquals(missing, [], "add a sample call for each new tool");
    let writing = 0;
    for (const tool of tools) {
      const access = await tool.declare(parseToolInput(tool, SAMPLES[tool.name]), ctx);
      const writes = (access.writes?.length ?? 0) > 0 || access.key === "bash";
      if (!writes) continue;
      writing++;
      assert(
        (WRITING_KEYS as readonly string[]).includes(access.key),
        `${tool.name} writes under "${access.key}", which is not in WRITING_KEYS`,
      );
      const decision = evaluate(access, { layers, workspace });
      assertEquals(decision.action, "deny", `${tool.name}: ${decision.reason}`);
    }
    assertEquals(writing, 6, "bash, write, edit, apply_patch, file_copy and file_delete write");
    const bash = tools.find((tool) => tool.name === "bash")!;
    for (const command of WRITING_COMMANDS) {
      const access = await bash.declare(parseToolInput(bash, { command }), ctx);
      assertEquals(evaluate(access, { layers, workspace }).action, "deny", command);
    }
    const look = await bash.declare(parseToolInput(bash, { command: "git status" }), ctx);
    assertEquals(evaluate(look, { layers, workspace }).action, "allow", "looking stays allowed");
  } finally {
    Deno.removeSync(workspace, { recursive: true });
  }
});
