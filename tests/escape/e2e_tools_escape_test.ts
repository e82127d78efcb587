/**
 * End-to-end escape attempts, part 4: the remaining tools as the way out —
 * searching through workspace links to keys, /proc and the engine's own
 * environment, a working folder outside, `file:` URLs, skill names as paths,
 * background commands. Each runs `skiff run --json` as a real process
 * against the scripted mock.
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  assertNoSecrets,
  assertUnchanged,
  everythingSent,
  guarded,
  lastToolResults,
  needsBwrap,
  read,
  withAttack,
} from "./e2e_support.ts";

Deno.test("e2e: searching the workspace does not follow links to keys outside, headless or --yes", async () => {
  const grep = (pattern: string, where?: string) => ({
    name: "grep",
    arguments: { pattern, ...(where ? { path: where } : {}) },
  });
  for (const flags of [[], ["--yes"]]) {
    await withAttack([
      { toolCalls: [grep("PRIVATE")] },
      { toolCalls: [grep("PRIVATE", "key")] },
      { toolCalls: [grep("secret", "keys")] },
      { toolCalls: [{ name: "glob", arguments: { pattern: "keys/**" } }] },
      { toolCalls: [{ name: "list", arguments: { path: "keys" } }] },
      { text: "done" },
    ], async (sandbox, mock) => {
      await Deno.symlink(path.join(sandbox.home, ".ssh"), path.join(sandbox.workspace, "keys"));
      await Deno.symlink(
        path.join(sandbox.home, ".ssh", "id_rsa"),
        path.join(sandbox.workspace, "key"),
      );
      const result = await runSkiff(["run", "--json", ...flags, "search"], sandbox);
      assert(result.code === 0 || result.code === 3, result.stderr);
      assertEquals(lastToolResults(mock).length, 5);
      assertNoSecrets(everythingSent(mock), result.stdout, result.stderr);
      assert(!everythingSent(mock).includes("id_rsa\\n"), "a name under ~/.ssh was listed");
    });
  }
});

Deno.test("e2e: the engine's own environment and /proc stay out of reach of the file tools", async () => {
  await withAttack([
    { toolCalls: [read("/proc/self/environ")] },
    { toolCalls: [read("/proc/1/environ")] },
    { toolCalls: [read("/proc/self/root/etc/hostname")] },
    { toolCalls: [{ name: "grep", arguments: { pattern: "sk-", path: "/proc/self" } }] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "--yes", "read env"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    for (const message of lastToolResults(mock)) {
      assertMatch(message.content, /not_capable|denied|Error/);
    }
    assertNoSecrets(everythingSent(mock), result.stdout, result.stderr);
  });
});

Deno.test("e2e: a command cannot be started with its working folder outside", async () => {
  const outsideCall = { name: "bash", arguments: { command: "touch pwned", cwd: "" } };
  await withAttack([
    { toolCalls: [outsideCall] },
    { toolCalls: [{ name: "bash", arguments: { command: "touch pwned", cwd: "~/.ssh" } }] },
    { text: "done" },
  ], async (sandbox, mock) => {
    outsideCall.arguments.cwd = sandbox.outside;
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "go"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    for (const message of lastToolResults(mock)) {
      assertStringIncludes(message.content, "outside the workspace");
    }
    assertUnchanged(before, guarded(sandbox));
  });
});

Deno.test("e2e: webfetch cannot read local files and skill names no path, even with --yes", async () => {
  await withAttack([
    {
      toolCalls: [{
        name: "webfetch",
        arguments: { url: "file:///proc/self/environ", format: "text" },
      }],
    },
    { toolCalls: [{ name: "skill", arguments: { name: "../../home/.ssh" } }] },
    { text: "done" },
  ], async (sandbox, mock) => {
    // One real skill, so the skill tool exists.
    const skillDir = path.join(sandbox.workspace, ".skiff", "skills", "demo");
    await Deno.mkdir(skillDir, { recursive: true });
    await Deno.writeTextFile(
      path.join(skillDir, "SKILL.md"),
      "---\nname: demo\ndescription: a demo\n---\nDo the demo.\n",
    );
    const result = await runSkiff(["run", "--json", "--yes", "fetch"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    for (const message of lastToolResults(mock)) assertStringIncludes(message.content, "Error");
    assertNoSecrets(everythingSent(mock), result.stdout, result.stderr);
  });
});

Deno.test({
  name: "e2e: a background command stays contained, and process takes no raw pid",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      {
        toolCalls: [{
          name: "bash",
          arguments: { command: "sleep 1; touch ../outside/late inside-late", background: true },
        }],
      },
      { toolCalls: [{ name: "process", arguments: { id: "1", action: "stop" } }] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const before = guarded(sandbox);
      const result = await runSkiff(["run", "--json", "--yes", "start it"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(lastToolResults(mock)[1].content, "Error");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assertUnchanged(before, guarded(sandbox));
    });
  },
});

Deno.test({
  name: "e2e: a background command is stopped when the run ends",
  fn: async () => {
    await withAttack([
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 8", background: true } }] },
      { text: "done" },
    ], async (sandbox) => {
      const started = Date.now();
      const result = await runSkiff(["run", "--json", "--yes", "start it"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assert(Date.now() - started < 6000, `the run waited ${Date.now() - started} ms`);
    });
  },
});
