/**
 * The rule table a run judges with is the one the policy tests judge with:
 * the app's `ruleLayers` hands its sources to the policy's `buildLayers`, so
 * a test that builds layers with `buildLayers` exercises what ships.
 */
import { assertEquals } from "../support/assert.ts";
import { ruleLayers } from "../../src/engine/permission_gate.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import { checkSubject } from "../../src/permission/evaluate.ts";
import { flagsLayer } from "../../src/permission/flags.ts";
import type { PermissionConfig } from "../../src/permission/rules.ts";
import { testSpec } from "./_spec.ts";

const global: PermissionConfig = { bash: { "git *": "allow" } };
const project: PermissionConfig = { bash: { "npm test": "allow" } };
const parent: PermissionConfig = { webfetch: "deny" };
const agent: PermissionConfig = { edit: "ask" };
const flags = { allow: ["bash(make *)"], ask: [], deny: [], yes: false };

Deno.test("the run's rule table is buildLayers' table, layer for layer", () => {
  const spec = testSpec({
    permissionLayers: [
      { source: "global", permission: global },
      { source: "project", permission: project },
    ],
    inheritedPermission: [parent],
    flags,
  });
  const shipped = ruleLayers(spec, agent);
  assertEquals(shipped.map((layer) => layer.name), [
    "defaults",
    "global",
    "project",
    "agent",
    "agent",
    "flags",
  ]);
  assertEquals(
    shipped,
    buildLayers({
      global: global,
      project: project,
      parentAgents: [parent],
      agent: agent,
      flags: flagsLayer(flags),
    }),
  );
});

Deno.test("a subagent's own allow is dropped from the table; its deny stays", () => {
  const own: PermissionConfig = { bash: { "curl *": "allow", "rm *": "deny" } };
  const top = ruleLayers(testSpec(), own);
  const child = ruleLayers(testSpec({ depth: 1 }), own);
  assertEquals(checkSubject(top, "bash", "curl -s example.com").action, "allow");
  assertEquals(checkSubject(child, "bash", "curl -s example.com").action, "ask");
  assertEquals(checkSubject(child, "bash", "rm -rf x").action, "deny");
});
