/**
 * The terminal side of approvals: a question that cannot be put is refused
 * (and said so), instead of an unhandled rejection that would end skiff with
 * the engine still waiting for an answer.
 */
import { assertEquals } from "../support/assert.ts";
import { approvalPrompter } from "../../src/cli/approvals.ts";
import type { ApprovalRequest } from "../../src/app/engine_types.ts";

const request: ApprovalRequest = {
  tool: "bash",
  callId: "c1",
  access: { key: "bash", patterns: ["echo hi"], commands: ["echo hi"] },
  decision: { action: "ask", reason: "ask rule", checks: [] },
  always: [],
};

Deno.test("a prompt that fails is a deny, not a crash", async () => {
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
  try {
    const ask = approvalPrompter(
      true,
      () => Promise.resolve({ ask: () => Promise.reject(new Error("stdin closed")) }),
    );
    assertEquals(await ask(request), "deny");
  } finally {
    console.error = original;
  }
  assertEquals(errors.length, 1);
  assertEquals(String(errors[0]).includes("stdin closed"), true);
});

Deno.test("headless never asks", async () => {
  assertEquals(await approvalPrompter(false)(request), "deny");
});
