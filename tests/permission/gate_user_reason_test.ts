/**
 * A call the user refused at the prompt with a reason ("Deny and tell the
 * model why"): the run's list of denials (session.completed, and the
 * summary `skiff run` prints at the end) says the user's reason, not the
 * rule that made skiff ask, which was not why the call was refused.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import type {
  ApprovalAnswer,
  ApprovalBroker,
  ApprovalRequest,
} from "../../src/permission/broker.ts";
import { PermissionGate } from "../../src/permission/gate.ts";
import { buildLayers } from "../../src/permission/layers.ts";

const workspace = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-gate-why-" }));
globalThis.addEventListener("unload", () => Deno.removeSync(workspace, { recursive: true }));

class Answers implements ApprovalBroker {
  constructor(private answers: ApprovalAnswer[]) {}
  ask(_request: ApprovalRequest): Promise<ApprovalAnswer> {
    return Promise.resolve(this.answers.shift() ?? "deny");
  }
}

const rm = { key: "bash", patterns: ["rm -f b.txt"], commands: ["rm -f b.txt"] };

Deno.test("gate: a call the user denied with a reason is listed with that reason", async () => {
  const gate = new PermissionGate({
    layers: buildLayers({}),
    workspace,
    broker: new Answers([{ deny: "keep b.txt, it is needed" }, "deny"]),
  });
  const first = await gate.check("bash", { command: "rm -f b.txt" }, rm);
  assertEquals(first.allowed, false);
  const plain = await gate.check("bash", { command: "rm -f b.txt" }, rm);
  assertEquals(plain.allowed, false);
  const [withReason, without] = gate.denials();
  assertEquals(withReason.reason, "denied at the prompt: keep b.txt, it is needed");
  // A plain Deny keeps the rule that asked, as before.
  assertStringIncludes(without.reason, "bash(rm -f b.txt)");
});
