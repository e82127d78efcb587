/**
 * MCP tools in their own namespace: an allow rule is held to the server's
 * name (`github_*` allows the server `github`'s tools, not `github_helper`'s),
 * asks and denies match the whole name as written, no built-in key's default
 * reaches an MCP tool, and no built-in tool's name or key is left for an MCP
 * tool to take.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { mcpRuleKeyMatches } from "../../src/permission/mcp_rule_keys.ts";
import { evaluate } from "../../src/permission/evaluate.ts";
import { defaultLayer } from "../../src/permission/defaults.ts";
import type { RuleLayer } from "../../src/permission/rules.ts";
import { reservedToolNames } from "../../src/mcp/reserved_names.ts";
import { BUILTIN_KEYS } from "../../src/config/permission_keys.ts";
import { generatedToolSchemas } from "../../src/tools/registry.ts";
import { MCP_SERVER_KEY } from "../../src/trust/mcp_trust.ts";

const helperPush = { server: "github_helper", tool: "push" };
const githubIssue = { server: "github", tool: "issue" };

Deno.test("an allow rule reaches the tools of the server it names, not of a server whose name extends it", () => {
  for (const key of ["github_*", "github_issue", "*", "*_issue", "git*_*", "github_i*"]) {
    assert(mcpRuleKeyMatches(key, "allow", "github_issue", githubIssue), key);
  }
  for (const key of ["github_*", "github_helper*", "github_h*", "gith*"]) {
    assert(!mcpRuleKeyMatches(key, "allow", "github_helper_push", helperPush), key);
  }
  for (const key of ["github_helper_*", "github_helper_push", "*_push", "git*_*", "*"]) {
    assert(mcpRuleKeyMatches(key, "allow", "github_helper_push", helperPush), key);
  }
});

Deno.test("a rule for a longer server's tools is not one for the shorter server's", () => {
  const helperOfGithub = {
    server: "github",
    tool: "helper_push",
    longerServers: ["github_helper"],
  };
  assert(!mcpRuleKeyMatches("github_helper_*", "allow", "github_helper_push", helperOfGithub));
  assert(mcpRuleKeyMatches("github_*", "allow", "github_helper_push", helperOfGithub));
  // Even the whole name: it reads as the longer server's tool `push`.
  assert(!mcpRuleKeyMatches("github_helper_push", "allow", "github_helper_push", helperOfGithub));
});

Deno.test("ask and deny rules match the whole name as written: a broad deny still covers it", () => {
  for (const action of ["ask", "deny"] as const) {
    for (const key of ["github_*", "*push*", "gith*"]) {
      assert(mcpRuleKeyMatches(key, action, "github_helper_push", helperPush), `${action} ${key}`);
    }
  }
});

Deno.test("an MCP call is judged with no built-in default: a server named like a built-in key's prefix asks", () => {
  const layers: RuleLayer[] = [defaultLayer(), {
    name: "global",
    permission: { "github_*": "allow" },
  }];
  const judge = (key: string, mcp: { server: string; tool: string }) =>
    evaluate({ key, patterns: [key], mcp }, { layers, workspace: "/w" }).action;
  assertEquals(judge("github_helper_push", helperPush), "ask");
  assertEquals(judge("github_issue", githubIssue), "allow");
  // Without a rule the default is ask, whatever a built-in key of that name would get.
  assertEquals(judge("harness_record", { server: "harness", tool: "record" }), "ask");
});

Deno.test("every built-in and session tool's name, every built-in key and mcp_server are reserved", () => {
  const reserved = reservedToolNames();
  for (const name of [...BUILTIN_KEYS, ...generatedToolSchemas().map(([name]) => name)]) {
    assert(reserved.has(name), name);
  }
  assert(reserved.has(MCP_SERVER_KEY));
});
