import assert from "node:assert/strict";
import { builtinAgents } from "../../../src/definitions/agents/builtin.ts";
import {
  filterTools,
  isToolEnabled,
  subagentsOf,
} from "../../../src/definitions/agents/filter_tools.ts";
import { checkSubject } from "../../../src/permission/evaluate.ts";
import { buildLayers } from "../../../src/permission/layers.ts";

const ALL = [
  "read",
  "write",
  "edit",
  "apply_patch",
  "bash",
  "grep",
  "glob",
  "list",
  "webfetch",
  "todowrite",
  "todoread",
  "task",
  "skill",
  "github_get_issue",
];
const agent = (name: string) => builtinAgents().find((candidate) => candidate.name === name)!;

Deno.test("plan cannot edit, write or patch, and denies bash except read-only commands", () => {
  const plan = agent("plan");
  const tools = filterTools(plan, ALL, 0);
  for (const banned of ["edit", "write", "apply_patch"]) assert.ok(!tools.includes(banned));
  assert.ok(tools.includes("read") && tools.includes("bash") && tools.includes("task"));
  const bash = plan.permission.bash as Record<string, string>;
  assert.equal(bash["*"], "deny");
  assert.equal(bash["git status *"], "allow");
  assert.equal(bash["git diff *"], "allow");
  assert.equal(bash["rg *"], "allow");
  assert.equal(plan.permission.edit, "deny");
});

Deno.test("plan's rules, through the policy table: looking is allowed, changing is denied", () => {
  // A project that allows every command still cannot widen plan: a deny in any layer wins.
  const layers = buildLayers({
    project: { bash: "allow", edit: "allow" },
    agent: agent("plan").permission,
  });
  const bash = (command: string) => checkSubject(layers, "bash", command).action;
  for (
    const looking of [
      "git status",
      "git diff HEAD~1",
      "git log -n5",
      "ls -la src",
      "rg TODO",
      "cat README.md",
    ]
  ) {
    assert.equal(bash(looking), "allow", looking);
  }
  for (
    const changing of [
      "rm -rf src",
      "npm install",
      "git push",
      "git commit -m x",
      "git diff --output=patch.txt",
      "rg --pre=sh x",
    ]
  ) {
    assert.equal(bash(changing), "deny", changing);
  }
  assert.equal(checkSubject(layers, "edit", "src/app.ts").action, "deny");
});

Deno.test("build gets everything at the top; children lose todos, and task at max depth", () => {
  assert.deepEqual(filterTools(agent("build"), ALL, 0), ALL);
  const child = filterTools(agent("build"), ALL, 1);
  assert.ok(!child.includes("todowrite") && !child.includes("todoread") && !child.includes("task"));
  const deeper = filterTools(agent("build"), ALL, 1, 3);
  assert.ok(deeper.includes("task"), "with max depth 3 a depth-1 child may still delegate");
  assert.ok(!deeper.includes("todowrite"));
  assert.ok(!filterTools(agent("build"), ALL, 3, 3).includes("task"));
});

Deno.test("general has all but todo and task; explore only looks", () => {
  const general = filterTools(agent("general"), ALL, 0, 5);
  assert.deepEqual(
    general,
    ALL.filter((name) => !["todowrite", "todoread", "task"].includes(name)),
  );
  assert.deepEqual(filterTools(agent("explore"), ALL, 1), [
    "read",
    "grep",
    "glob",
    "list",
    "webfetch",
  ]);
  assert.deepEqual(subagentsOf(builtinAgents()).map((a) => a.name), ["general", "explore"]);
});

Deno.test("wildcard toggles: last matching entry wins, no match means on", () => {
  const tools = { "mcp_*": false, "*_get_*": true, write: false };
  assert.equal(isToolEnabled(tools, "mcp_fetch"), false);
  assert.equal(isToolEnabled(tools, "mcp_get_x"), true);
  assert.equal(isToolEnabled(tools, "write"), false);
  assert.equal(isToolEnabled(tools, "read"), true);
  assert.deepEqual(filterTools({ tools: { "*": false, read: true } }, ALL, 0), ["read"]);
});

Deno.test("a subagent never holds a tool one of its parents switched off", () => {
  const names = [...ALL, "tracker_delete_all", "tracker_list"];
  const parents: Record<string, boolean>[] = [{ "tracker_*": false }, { webfetch: false }];
  const child = filterTools(agent("general"), names, 1, 1, parents);
  assert.ok(!child.includes("tracker_delete_all") && !child.includes("tracker_list"));
  assert.ok(!child.includes("webfetch"));
  assert.ok(child.includes("read") && child.includes("bash"));
});
