/**
 * The terminal side of approvals: a question that cannot be put is refused
 * (and said so), instead of an unhandled rejection that would end skiff with
 * the engine still waiting for an answer.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { approvalPrompter } from "../../src/cli/approvals.ts";
import type { ApprovalRequest } from "../../src/engine/types.ts";
import { InteractiveBroker, type PromptFunctions } from "../../src/ui/interactive_broker.ts";

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

Deno.test("the prompt shows a command's, a diff's and a rule's control characters instead of obeying them", async () => {
  const drawn: string[] = [];
  const prompts: PromptFunctions = {
    note: (message, title) => drawn.push(`${title}\n${message}`),
    select: (options) => {
      drawn.push(
        options.options.map((option) => `${option.label} ${option.hint ?? ""}`).join("\n"),
      );
      return Promise.resolve("deny");
    },
    isCancel: (value): value is symbol => typeof value === "symbol",
  };
  const hidden = "rm -rf ~ #\r\x1b[2Kgit status";
  const ask = approvalPrompter(true, () => Promise.resolve(new InteractiveBroker(prompts)));
  assertEquals(
    await ask({
      tool: "bash\x1b[8m",
      callId: "c1",
      access: { key: "bash", patterns: [hidden], commands: [hidden], preview: `$ ${hidden}` },
      decision: { action: "ask", reason: `bash(${hidden}): no rule`, checks: [] },
      always: [{ key: "bash", patterns: ["rm *\x1b[2K"] }],
    }),
    "deny",
  );
  const diff = "--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-ok\n+\u202eevil\u202c \x1b[1Aok\n";
  await ask({
    tool: "edit",
    callId: "c2",
    access: { key: "edit", patterns: ["a.ts"], preview: diff },
    decision: { action: "ask", reason: "edit(a.ts): ask", checks: [] },
    always: [],
  });
  const screen = drawn.join("\n");
  assertStringIncludes(screen, "bash\\x1b[8m wants permission");
  assertStringIncludes(screen, "$ rm -rf ~ #\\r\\x1b[2Kgit status");
  assertStringIncludes(screen, "bash(rm -rf ~ #\\r\\x1b[2Kgit status): no rule");
  assertStringIncludes(screen, "bash(rm *\\x1b[2K)");
  assertStringIncludes(screen, "+\\u202eevil\\u202c \\x1b[1Aok");
  // deno-lint-ignore no-control-regex -- looking for control characters
  assertEquals(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.exec(screen), null);
});
