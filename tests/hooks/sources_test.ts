/**
 * Which hooks a session gets from its four files, and which tool calls a
 * matcher covers: Claude Code's names and skiff's both.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { projectHookSubjects, sessionHookSpecs } from "../../src/hooks/sources.ts";
import { hookToolNames, matcherCovers } from "../../src/hooks/tool_names.ts";
import type { ClaudeSettingsRead } from "../../src/config/claude_settings.ts";

const command = (text: string, timeout?: number) => ({ type: "command", command: text, timeout });

function reader(files: Record<string, unknown>) {
  return (file: string): ClaudeSettingsRead =>
    file in files ? { hooks: files[file], warnings: [] } : { warnings: [] };
}

Deno.test("matchers cover Claude Code's tool names and skiff's, whole names only", () => {
  const edit = hookToolNames("edit");
  assert(matcherCovers("Edit|Write", edit));
  assert(matcherCovers("edit", edit));
  assert(matcherCovers(undefined, edit) && matcherCovers("*", edit) && matcherCovers("", edit));
  assert(!matcherCovers("Bash", edit));
  assert(!matcherCovers("Edi", edit), "a pattern matches the whole name");
  assert(matcherCovers("Write", hookToolNames("apply_patch")));
  const mcp = hookToolNames("github_get_issue", { server: "github", tool: "get_issue" });
  assert(matcherCovers("mcp__github__.*", mcp));
  assert(!matcherCovers("mcp__gitlab__.*", mcp));
});

Deno.test("hooks from all four files; a project's only when trusted; unsandboxed only the user's", () => {
  const options = {
    home: "/home/u",
    workspace: "/work",
    user: { file: "/cfg/config.json", hooks: { Stop: [{ hooks: [command("user-stop")] }] } },
    project: {
      file: "/work/skiff.json",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [command("project-guard", 5)] }] },
    },
    readClaude: reader({
      "/home/u/.claude/settings.json": {
        PostToolUse: [{ matcher: "Edit", hooks: [command("fmt")] }],
        SubagentStop: [{ hooks: [command("x")] }],
      },
      "/work/.claude/settings.local.json": { SessionStart: [{ hooks: [command("hello")] }] },
    }),
    userUnsandboxed: true,
  };
  const untrusted = sessionHookSpecs({ ...options, projectTrusted: false });
  assertEquals(untrusted.hooks.map((hook) => hook.command), ["fmt", "user-stop"]);
  assert(untrusted.hooks.every((hook) => hook.unsandboxed));
  assertStringIncludes(untrusted.warnings.join("\n"), "skiff runs no SubagentStop hooks");
  // What trusting the project would run, for the trust question and its warning.
  assertEquals(projectHookSubjects(options), [
    { file: "/work/.claude/settings.local.json", asks: ["hook SessionStart: hello"] },
    { file: "/work/skiff.json", asks: ["hook PreToolUse: project-guard"] },
  ]);
  const trusted = sessionHookSpecs({ ...options, projectTrusted: true });
  assertEquals(trusted.hooks.map((hook) => [hook.command, hook.source, hook.unsandboxed]), [
    ["fmt", "claude-user", true],
    ["user-stop", "skiff-user", true],
    ["hello", "claude-project", false],
    ["project-guard", "skiff-project", false],
  ]);
  assertEquals(trusted.hooks[3].timeoutSeconds, 5);
  assertEquals(trusted.hooks[0].timeoutSeconds, 60);
});

Deno.test("a settings file whose hooks are not in the shape is named and skipped", () => {
  const read = sessionHookSpecs({
    home: "/home/u",
    workspace: "/work",
    readClaude: reader({ "/home/u/.claude/settings.json": { PreToolUse: "rm -rf /" } }),
    projectTrusted: false,
    userUnsandboxed: false,
  });
  assertEquals(read.hooks, []);
  assertStringIncludes(read.warnings[0], "not in Claude Code's shape");
});
