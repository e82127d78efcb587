/**
 * `readVerdictFor` is built into every call's context, and few calls search:
 * the rule table behind it is assembled at its first verdict, once, and its
 * verdicts are the table's.
 */
import { assertEquals } from "../support/assert.ts";
import { readVerdictFor, ruleLayers } from "../../src/engine/permission_gate.ts";
import { checkSubject } from "../../src/permission/evaluate.ts";
import type { PermissionConfig } from "../../src/permission/rules.ts";
import { testSpec } from "./_spec.ts";

const project: PermissionConfig = { read: { "secret/*": "deny", "docs/*": "ask" } };
const agent: PermissionConfig = { read: { "*.md": "ask" } };

Deno.test("readVerdictFor builds its rule table at the first verdict, once, and judges by it", () => {
  const base = testSpec({
    permissionLayers: [{ source: "project", permission: project }],
    flags: { allow: [], ask: [], deny: ["read(*.key)"], yes: false },
  });
  let built = 0;
  const spec = Object.defineProperty({ ...base }, "permissionLayers", {
    get: () => {
      built++;
      return base.permissionLayers;
    },
  });
  const verdict = readVerdictFor(spec, agent);
  assertEquals(built, 0, "no table before a verdict is asked for");
  const layers = ruleLayers(base, agent);
  for (
    const display of ["src/a.ts", "secret/x", "docs/y.txt", "README.md", "a.key", ".env", "id_rsa"]
  ) {
    const check = checkSubject(layers, "read", display);
    assertEquals(verdict(`/work/project/${display}`, display), {
      action: check.action,
      reason: check.reason,
      pattern: check.rule?.pattern,
    }, display);
  }
  // ruleLayers reads the layer list once per source (global, project) per build.
  const perBuild = built;
  assertEquals(perBuild > 0, true, "the first verdict built the table");
  verdict("/work/project/b.ts", "b.ts");
  assertEquals(built, perBuild, "the table is reused, not rebuilt per verdict");
  assertEquals(verdict("/work/project/secret/x", "secret/x").action, "deny");
});
