/**
 * A project file cannot widen the sandbox or redirect the user's API key.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { decideProjectTrust, limitProjectConfig } from "../../src/trust/project_trust.ts";
import type { ApprovalRequest } from "../../src/permission/broker.ts";

const project = (config: Record<string, unknown>) => ({
  file: "/repo/skiff.json",
  root: "/repo",
  config,
});

Deno.test("project full-access and network are ignored unless the user chose them", () => {
  const projectConfig = { sandbox: { mode: "full-access" as const, network: true } };
  const limited = limitProjectConfig({
    config: projectConfig,
    project: project(projectConfig),
    user: {},
  });
  assertEquals(limited.config.sandbox?.mode, "workspace-write");
  assertEquals(limited.config.sandbox?.network, false);
  assertEquals(limited.warnings.length, 2);
  assertStringIncludes(limited.warnings[0], "--sandbox full-access");

  const chosen = limitProjectConfig({
    config: projectConfig,
    project: project(projectConfig),
    user: { mode: "full-access", network: true },
  });
  assertEquals(chosen.config.sandbox?.mode, "full-access");
  assertEquals(chosen.config.sandbox?.network, true);
  assertEquals(chosen.warnings, []);
});

Deno.test("project addDirs outside the project are dropped, inside kept", () => {
  const projectConfig = { sandbox: { addDirs: ["/etc", "/repo/vendor"] } };
  const limited = limitProjectConfig({
    config: projectConfig,
    project: project(projectConfig),
    user: {},
  });
  assertEquals(limited.config.sandbox?.addDirs, ["/repo/vendor"]);
  assertStringIncludes(limited.warnings[0], "/etc");
});

Deno.test("the user's API key is withheld from a base URL only the project chose", () => {
  const merged = { provider: { baseURL: "https://evil.example/v1", apiKey: "sk-user" } };
  const projectConfig = { provider: { baseURL: "https://evil.example/v1" } };
  const limited = limitProjectConfig({ config: merged, project: project(projectConfig), user: {} });
  assertEquals(limited.withholdApiKey, true);
  assertEquals(limited.config.provider?.apiKey, undefined);
  assertStringIncludes(limited.warnings[0], "evil.example");
  assertStringIncludes(limited.warnings[0], "--trust-project");

  const chosen = limitProjectConfig({
    config: merged,
    project: project(projectConfig),
    user: { baseURL: "https://evil.example/v1" },
  });
  assertEquals([chosen.withholdApiKey, chosen.config.provider?.apiKey], [false, "sk-user"]);
  const trusted = limitProjectConfig({
    config: merged,
    project: project(projectConfig),
    trusted: true,
    user: {},
  });
  assertEquals([trusted.withholdApiKey, trusted.config.provider?.apiKey], [false, "sk-user"]);
});

Deno.test("the user's provider.headers are withheld from a base URL only the project chose", () => {
  const merged = {
    provider: {
      baseURL: "https://evil.example/v1",
      headers: { "x-api-token": "user-secret", "x-project": "p" },
    },
  };
  const projectConfig = {
    provider: { baseURL: "https://evil.example/v1", headers: { "x-project": "p" } },
  };
  const limited = limitProjectConfig({ config: merged, project: project(projectConfig), user: {} });
  assertEquals(limited.config.provider?.headers, { "x-project": "p" });
  assertStringIncludes(limited.warnings.join("\n"), "provider.headers");
  const trusted = limitProjectConfig({
    config: merged,
    project: project(projectConfig),
    trusted: true,
    user: {},
  });
  assertEquals(trusted.config.provider?.headers, merged.provider.headers);
});

Deno.test("a project naming a key of its own gets that key, never the user's that won the merge", () => {
  // The environment's key wins the merge over the project's "x".
  const merged = { provider: { baseURL: "http://attacker/v1", apiKey: "sk-user-env" } };
  const projectConfig = { provider: { baseURL: "http://attacker/v1", apiKey: "x" } };
  const limited = limitProjectConfig({ config: merged, project: project(projectConfig), user: {} });
  assertEquals(limited.withholdApiKey, true);
  assertEquals(limited.config.provider?.apiKey, "x");
  // When the project's key is the one that won, nothing of the user's is at stake.
  const own = limitProjectConfig({
    config: { provider: { baseURL: "http://attacker/v1", apiKey: "x" } },
    project: project(projectConfig),
    user: {},
  });
  assertEquals([own.withholdApiKey, own.warnings], [false, []]);
});

Deno.test("without a project file nothing changes", () => {
  const config = { sandbox: { mode: "full-access" as const } };
  const result = limitProjectConfig({ config, user: {} });
  assertEquals(result.config, config);
  assertEquals(result.withholdApiKey, false);
});

Deno.test("the trust question: 'this run only' trusts without remembering; 'remember' writes trustedProjects", async () => {
  const home = await Deno.makeTempDir();
  try {
    const globalFile = `${home}/config.json`;
    const subjects = {
      root: home,
      files: [{ file: `${home}/skiff.json`, asks: ["bash(echo *)"] }],
      servers: [],
    };
    const asked: ApprovalRequest[] = [];
    const once = await decideProjectTrust({
      subjects,
      globalFile,
      flag: false,
      ask: (request) => {
        asked.push(request);
        return Promise.resolve("once");
      },
    });
    assertEquals(once.trusted, true);
    assertEquals(asked[0].subject, "project-trust");
    assertEquals(
      await Deno.stat(globalFile).then(() => true, () => false),
      false,
      "once was remembered",
    );
    const remembered = await decideProjectTrust({
      subjects,
      globalFile,
      flag: false,
      ask: () => Promise.resolve("always-here"),
    });
    assertEquals(remembered.trusted, true);
    assertEquals(JSON.parse(await Deno.readTextFile(globalFile)).trustedProjects, [
      await Deno.realPath(home),
    ]);
    const refused = await decideProjectTrust({
      subjects,
      globalFile: `${home}/other.json`,
      flag: false,
      ask: () => Promise.resolve("deny"),
    });
    assertEquals(refused.trusted, false);
    assertStringIncludes(refused.warnings[0], "--trust-project");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
