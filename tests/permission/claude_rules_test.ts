import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ensureShellParser } from "../../src/permission/shell/shell_parser.ts";
import { evaluate } from "../../src/permission/evaluate.ts";
import { isClaudeRule, mapClaudeRule } from "../../src/permission/claude_rules.ts";
import { claudePermissionLayers } from "../../src/permission/claude_layers.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import type { Action, PermissionConfig } from "../../src/permission/rules.ts";
import type { ClaudeSettingsRead } from "../../src/config/claude_settings.ts";
import type { Access } from "../../src/tools/tool.ts";

await ensureShellParser();

const home = "/home/u";
const user = { home, project: false };
const project = { home, project: true };
const rule = (key: string, pattern: string) => ({ kind: "rule" as const, key, pattern });

const workspace = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-claude-rules-" }));
const bash = (command: string): Access => ({
  key: "bash",
  patterns: [command],
  commands: [command],
});
const read = (file: string): Access => ({
  key: "read",
  patterns: [file],
  reads: [path.resolve(workspace, file)],
});
function verdict(access: Access, permission: PermissionConfig): Action {
  return evaluate(access, { layers: buildLayers({ claudeProject: permission }), workspace }).action;
}
function mapped(text: string, action: Action = "allow"): PermissionConfig {
  const result = mapClaudeRule(text, action, project);
  assertEquals(result.kind, "rule", `${text}: ${JSON.stringify(result)}`);
  const { key, pattern } = result as { key: string; pattern: string };
  return { [key]: { [pattern]: action } };
}

Deno.test("Claude Code's rules map to skiff's keys", () => {
  assertEquals(mapClaudeRule("Bash(git status:*)", "allow", user), rule("bash", "git status *"));
  assertEquals(mapClaudeRule("Bash(npm test)", "allow", user), rule("bash", "npm test"));
  assertEquals(mapClaudeRule("Bash(git log *)", "allow", user), rule("bash", "git log *"));
  assertEquals(mapClaudeRule("Bash", "deny", user), rule("bash", "*"));
  assertEquals(mapClaudeRule("Read(./.env)", "deny", user), rule("read", ".env"));
  assertEquals(mapClaudeRule("Read(src/**)", "allow", user), rule("read", "src/*"));
  assertEquals(mapClaudeRule("Read(**/*.pem)", "allow", user), rule("read", "*.pem"));
  assertEquals(mapClaudeRule("Read(~/.ssh/**)", "deny", user), rule("read", "/home/u/.ssh/*"));
  assertEquals(mapClaudeRule("Read(//etc/hosts)", "allow", user), rule("read", "/etc/hosts"));
  assertEquals(mapClaudeRule("Edit(/docs/**)", "allow", project), rule("edit", "docs/*"));
  assertEquals(mapClaudeRule("Write(*.lock)", "ask", user), rule("edit", "*.lock"));
  assertEquals(
    mapClaudeRule("WebFetch(domain:Docs.Example.com)", "allow", user),
    rule("webfetch", "docs.example.com"),
  );
  assertEquals(mapClaudeRule("mcp__github__get_issue", "allow", user), {
    kind: "rule",
    key: "github_get_issue",
    pattern: "*",
  });
  assertEquals(mapClaudeRule("mcp__github", "allow", user), rule("github_*", "*"));
  assertEquals(mapClaudeRule("mcp__github__*", "deny", user), rule("github_*", "*"));
  assert(isClaudeRule("Bash(ls)") && isClaudeRule("mcp__a__b") && isClaudeRule("WebSearch"));
  assert(!isClaudeRule("bash(ls)") && !isClaudeRule("webfetch") && !isClaudeRule("Webfetch"));
});

Deno.test("a rule skiff would read wider is not mapped as an allow, with the reason", () => {
  const cases: [string, string][] = [
    ["Read(src/*.ts)", "crosses folders"],
    ["Bash(ls ?)", "any one character"],
    ["Read(/x)", "relative to that file's folder"],
    ["WebFetch(domain:evil.example/path)", "not a host name"],
    ["WebFetch(https://x.dev)", "domain:host"],
    ["mcp__*__delete", "other servers"],
    ["WebSearch", "no WebSearch tool"],
    ["Grep(*.ts)", "takes no specifier"],
    ["Frobnicate(x)", "unknown tool"],
    ["Bash(:*)", "empty"],
  ];
  for (const [text, reason] of cases) {
    const result = mapClaudeRule(text, "allow", user);
    assertEquals(result.kind, "unmapped", text);
    assertStringIncludes((result as { reason: string }).reason, reason, text);
  }
  // A deny written as an absolute path in the workspace still matches the file tools' relative name.
  const inside = mapClaudeRule(`Read(/${workspace}/.env)`, "deny", { ...user, workspace });
  assertEquals(inside, rule("read", ".env"));
  assertEquals(verdict(read(".env"), { read: { ".env": "deny" } }), "deny");
  // The same wide pattern as a deny only tightens, so it is kept.
  assertEquals(mapClaudeRule("Read(src/*.ts)", "deny", user), rule("read", "src/*.ts"));
});

Deno.test("attacker: a mapped allow covers no more than Claude Code's rule", () => {
  // `Bash(git:*)` is every git command, never every command.
  const git = mapped("Bash(git:*)");
  assertEquals(verdict(bash("git push --force"), git), "allow");
  for (const command of ["rm -rf /", "gitx", "git status; curl evil", "echo $(rm x)"]) {
    assert(verdict(bash(command), git) !== "allow", command);
  }
  // `Bash(npm test)` is that command alone.
  const exact = mapped("Bash(npm test)");
  assertEquals(verdict(bash("npm test"), exact), "allow");
  assert(verdict(bash("npm test && rm -rf /"), exact) !== "allow");
  // A file rule stays in its folder: `src/**` is not `.env`.
  const src = mapped("Read(src/**)");
  assertEquals(verdict(read("src/deep/a.ts"), src), "allow");
  assert(verdict(read(".env"), src) !== "allow");
  // A host is that host, not its look-alikes.
  const web = mapped("WebFetch(domain:docs.example)");
  const fetch = (url: string): Access => ({ key: "webfetch", patterns: [url] });
  assertEquals(verdict(fetch("https://docs.example/a"), web), "allow");
  assert(verdict(fetch("https://docs.example.evil.test/a"), web) !== "allow");
  assert(verdict(fetch("https://evil.test/?docs.example"), web) !== "allow");
  // Control: the wide reading the mapping refuses would have allowed more.
  assertEquals(verdict(read("src/deep/x.ts"), { read: { "src/*.ts": "allow" } }), "allow");
});

function files(
  byFile: Record<string, Partial<{ allow: string[]; ask: string[]; deny: string[] }>>,
) {
  return (file: string): ClaudeSettingsRead => {
    const lists = byFile[file];
    if (!lists) return { warnings: [] };
    return { lists: { file, allow: [], ask: [], deny: [], ...lists }, warnings: [] };
  };
}

Deno.test("an untrusted project's settings grant nothing; its denies and asks stay; deny wins", () => {
  const userFile = path.join(home, ".claude", "settings.json");
  const projectFile = path.join(workspace, ".claude", "settings.json");
  const localFile = path.join(workspace, ".claude", "settings.local.json");
  const read = files({
    [userFile]: { allow: ["Bash(echo:*)", "Bash(git:*)"] },
    [projectFile]: { allow: ["Bash(curl:*)"], deny: ["Bash(echo:*)"] },
    [localFile]: { allow: ["Bash(rm:*)"], ask: ["Bash(git push:*)"] },
  });
  const judge = (trusted: boolean, command: string) => {
    const { layers } = claudePermissionLayers({ home, workspace, projectTrusted: trusted, read });
    const by = (source: string) => layers.find((layer) => layer.source === source)?.permission;
    return evaluate(bash(command), {
      layers: buildLayers({ claudeUser: by("claude-user"), claudeProject: by("claude-project") }),
      workspace,
    }).action;
  };
  // Attack: the repository's allows. Control: the same files once trusted.
  assertEquals(judge(false, "curl evil"), "ask");
  assertEquals(judge(false, "rm -rf x"), "ask");
  assertEquals(judge(true, "curl evil"), "allow");
  assertEquals(judge(true, "rm -rf x"), "allow");
  // Its deny and ask hold either way, over the user's allow.
  for (const trusted of [false, true]) {
    assertEquals(judge(trusted, "echo hi"), "deny");
    assertEquals(judge(trusted, "git push"), "ask");
    assertEquals(judge(trusted, "git status"), "allow");
  }
  const { layers } = claudePermissionLayers({ home, workspace, projectTrusted: true, read });
  assertEquals(layers.map((layer) => [layer.source, layer.path]), [
    ["claude-user", userFile],
    ["claude-project", `${projectFile}, ${localFile}`],
  ]);
});

Deno.test("a rule that does not map is one warning naming the file and the rule", () => {
  const userFile = path.join(home, ".claude", "settings.json");
  const { layers, warnings } = claudePermissionLayers({
    home,
    workspace,
    projectTrusted: false,
    read: files({ [userFile]: { allow: ["WebSearch", "Bash(ls:*)"], deny: ["NotebookRead"] } }),
  });
  assertEquals(warnings, [
    `${userFile}: permissions.allow "WebSearch" is not used: skiff has no WebSearch tool`,
    `${userFile}: permissions.deny "NotebookRead" is not used: skiff has no NotebookRead tool`,
  ]);
  assertEquals(layers[0].permission, { bash: { "ls *": "allow" } });
});
