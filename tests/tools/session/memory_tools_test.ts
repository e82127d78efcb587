/**
 * The harness memory tools against a real store in a temporary folder: what
 * each stores, what harness_status assembles, that a handoff claims nothing
 * without evidence, and that staleness follows the files an entry names.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { openStore } from "../../../src/store/store.ts";
import {
  createHarnessTools,
  harnessDeps,
  memoryPlace,
  memoryScope,
} from "../../../src/tools/session/mod.ts";
import { parseToolInput } from "../../../src/tools/registry.ts";
import type { Tool } from "../../../src/tools/tool.ts";
import { makeContext } from "../_context.ts";
import { memoryPromptSection } from "../../../src/engine/loop/memory_prompt.ts";

async function setup(options: { git?: boolean } = {}) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-harness-" }));
  const workspace = path.join(root, "repo", "pkg");
  await Deno.mkdir(workspace, { recursive: true });
  if (options.git) {
    const git = path.join(root, "repo", ".git");
    await Deno.mkdir(path.join(git, "refs", "heads"), { recursive: true });
    await Deno.writeTextFile(path.join(git, "HEAD"), "ref: refs/heads/main\n");
    await Deno.writeTextFile(path.join(git, "refs", "heads", "main"), "a".repeat(40) + "\n");
  }
  const store = openStore(path.join(root, "data"));
  const tools = (sessionId: string) =>
    new Map(createHarnessTools(store.memory, workspace, sessionId).map((t) => [t.name, t]));
  const ctx = makeContext(workspace);
  const call = async (tool: Tool | undefined, input: unknown) => {
    const parsed = parseToolInput(tool!, JSON.stringify(input));
    const access = await tool!.declare(parsed, ctx);
    return { access, result: await tool!.execute(parsed, ctx) };
  };
  return {
    root,
    workspace,
    store,
    tools,
    call,
    [Symbol.asyncDispose]: async () => {
      store.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("remember: kept per git root with the commit, files scope-relative; each tool's permission key", async () => {
  await using t = await setup({ git: true });
  const tools = t.tools("ses_a");
  const { access, result } = await t.call(tools.get("remember"), {
    kind: "command",
    subject: "tests",
    body: "deno task test",
    files: ["deno.json"],
  });
  assertEquals(access, { key: "remember", patterns: ["command"] });
  assertStringIncludes(result.output, "Remembered m");
  const scope = path.join(t.root, "repo");
  assertEquals(memoryScope(t.workspace), scope);
  const [entry] = t.store.memory.memories(memoryPlace(t.workspace));
  assertEquals(entry.commit, "a".repeat(40));
  assertEquals(entry.files, [path.join("pkg", "deno.json")]);
  const keys = await Promise.all(
    [...tools.values()].map(async (tool) => (await t.call(tool, sample(tool.name))).access.key),
  );
  assertEquals(keys, [
    "remember",
    "harness_record",
    "harness_status",
    "harness_handoff",
    "harness_verify",
  ]);
});

function sample(name: string): unknown {
  switch (name) {
    case "remember":
      return { kind: "trap", subject: "s", body: "b" };
    case "harness_record":
      return { kind: "risk", summary: "r" };
    case "harness_handoff":
      return { current_goal: "g", next_steps: ["n"] };
    case "harness_verify":
      return { command: "c", exit_code: 0, output_summary: "ok" };
    default:
      return {};
  }
}

Deno.test("harness_record: every kind is accepted; an unknown kind is refused by the schema", async () => {
  await using t = await setup();
  const tool = t.tools("ses_a").get("harness_record")!;
  for (
    const kind of [
      "decision",
      "handoff",
      "failed_attempt",
      "bug_reproduction",
      "verification_result",
      "risk",
      "assumption",
      "issue_update",
    ]
  ) {
    await t.call(tool, { kind, summary: `a ${kind}`, source_paths: ["src/a.ts"], importance: 0.5 });
  }
  assertEquals(t.store.memory.records(memoryPlace(t.workspace)).length, 8);
  assertEquals(t.store.memory.records(memoryPlace(t.workspace))[0].sourcePaths, ["src/a.ts"]);
  let refused = false;
  try {
    parseToolInput(tool, JSON.stringify({ kind: "opinion", summary: "x" }));
  } catch {
    refused = true;
  }
  assert(refused, "an unknown kind must not be stored");
});

Deno.test("harness_handoff: not verified without evidence; verified by evidence or by a passing harness_verify of the session", async () => {
  await using t = await setup();
  const tools = t.tools("ses_a");
  const bare = await t.call(tools.get("harness_handoff"), {
    current_goal: "ship memory",
    next_steps: ["write docs"],
  });
  assertStringIncludes(bare.result.output, "NOT verified");
  assertEquals(bare.result.metadata?.verified, false);

  // A failing check does not verify; a passing one does.
  await t.call(tools.get("harness_verify"), {
    command: "deno test",
    exit_code: 1,
    output_summary: "2 failed",
  });
  const afterFail = await t.call(tools.get("harness_handoff"), {
    current_goal: "g",
    next_steps: ["n"],
  });
  assertEquals(afterFail.result.metadata?.verified, false);
  await t.call(tools.get("harness_verify"), {
    command: "deno test",
    exit_code: 0,
    output_summary: "9 passed",
  });
  const afterPass = await t.call(tools.get("harness_handoff"), {
    current_goal: "g",
    next_steps: ["n"],
  });
  assertStringIncludes(afterPass.result.output, "Status: verified (h");
  // Another session's passing check is not this session's evidence.
  const other = await t.call(t.tools("ses_b").get("harness_handoff"), {
    current_goal: "g",
    next_steps: ["n"],
  });
  assertEquals(other.result.metadata?.verified, false);
  const given = await t.call(t.tools("ses_b").get("harness_handoff"), {
    current_goal: "g",
    next_steps: ["n"],
    verification_evidence: "CI green, 873 passed",
  });
  assertStringIncludes(given.result.output, "verified (CI green, 873 passed)");
});

Deno.test("harness_status: objective, decisions, blockers, last verification, next action; no git degrades; a budget cuts it", async () => {
  await using t = await setup();
  const tools = t.tools("ses_a");
  const empty = await t.call(tools.get("harness_status"), {});
  assertStringIncludes(empty.result.output, "Objective: (none recorded");
  assertStringIncludes(empty.result.output, "Git: unavailable");
  await t.call(tools.get("harness_record"), {
    kind: "decision",
    summary: "store memory in SQLite",
  });
  await t.call(tools.get("harness_record"), {
    kind: "failed_attempt",
    summary: "a JSON file raced",
  });
  await t.call(tools.get("harness_handoff"), {
    current_goal: "finish harness memory",
    blockers: ["the MCP SDK is missing"],
    next_steps: ["write the MCP server"],
  });
  const status = (await t.call(tools.get("harness_status"), {})).result.output;
  assertStringIncludes(status, "Objective: finish harness memory");
  assertStringIncludes(status, "store memory in SQLite");
  assertStringIncludes(status, "a JSON file raced");
  assertStringIncludes(status, "Suggested next action: clear the blocker: the MCP SDK is missing");
  assertStringIncludes(status, "Last verification: none recorded");
  await t.call(tools.get("harness_verify"), {
    command: "deno test",
    exit_code: 1,
    output_summary: "3 failed",
  });
  const failing = (await t.call(tools.get("harness_status"), { include_git: false })).result.output;
  assertStringIncludes(failing, "Suggested next action: fix what the last verification reported");
  assertEquals(failing.includes("Git:"), false);
  const small = (await t.call(tools.get("harness_status"), { token_budget: 100 })).result.output;
  assert(small.length <= 400, `over the budget: ${small.length} chars`);
  assertStringIncludes(small, "(cut to the token budget)");
});

Deno.test("memory in the prompt: newest first, stale once a named file changes or goes, within the budget", async () => {
  await using t = await setup();
  const deps = harnessDeps(t.store.memory, t.workspace, "ses_a");
  await Deno.writeTextFile(path.join(t.workspace, "build.sh"), "make\n");
  await Deno.writeTextFile(path.join(t.workspace, "gone.txt"), "x\n");
  t.store.memory.remember(deps.place, {
    kind: "command",
    subject: "build",
    body: "run build.sh",
    files: ["build.sh"],
  });
  t.store.memory.remember(deps.place, {
    kind: "fact",
    subject: "gone",
    body: "see gone.txt",
    files: ["gone.txt"],
  });
  t.store.memory.remember(deps.place, { kind: "trap", subject: "newest", body: "no files" });
  let section = memoryPromptSection(t.store.memory, t.workspace)!;
  assert(
    section.indexOf("newest") < section.indexOf("gone") &&
      section.indexOf("gone") < section.indexOf("build"),
  );
  assertEquals(section.includes("STALE"), false);
  await Deno.remove(path.join(t.workspace, "gone.txt"));
  const later = new Date(Date.now() + 5_000);
  await Deno.utime(path.join(t.workspace, "build.sh"), later, later);
  section = memoryPromptSection(t.store.memory, t.workspace)!;
  assertStringIncludes(section, "build (");
  assertStringIncludes(section, "STALE: build.sh changed since");
  assertStringIncludes(section, "STALE: gone.txt changed since");
  assertEquals(section.split("\n").find((l) => l.includes("newest"))!.includes("STALE"), false);

  for (let i = 0; i < 80; i++) {
    t.store.memory.remember(deps.place, {
      kind: "fact",
      subject: `filler ${i}`,
      body: "y".repeat(200),
    });
  }
  const cut = memoryPromptSection(t.store.memory, t.workspace, 2000)!;
  assert(cut.length <= 2100, `prompt section ${cut.length} chars`);
  assertStringIncludes(cut, "more left out for space");
  assertStringIncludes(cut, "filler 79");
  assertEquals(memoryPromptSection(t.store.memory, "/nowhere"), null);
});
