/**
 * "Always" names the rule it stores, in the choice itself: `echo again`
 * approved "always" stores `bash(echo again *)`, wider than the call, and a
 * person must see that before choosing it (skiff run's list and the chat's
 * inline question alike).
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import type { ApprovalRequest } from "../../src/permission/broker.ts";
import {
  describeAlwaysRules,
  InlineBroker,
  InteractiveBroker,
  type PromptFunctions,
} from "../../src/ui/interactive_broker.ts";

const request: ApprovalRequest = {
  tool: "bash",
  callId: "c1",
  access: { key: "bash", patterns: ["echo again"], commands: ["echo again"] },
  decision: { action: "ask", reason: "bash(echo again): no rule matches", checks: [] },
  always: [{ key: "bash", patterns: ["echo again *"] }],
};

Deno.test("run approval: the always choices' labels name the rule they store", async () => {
  const labels: Record<string, string> = {};
  const prompts: PromptFunctions = {
    select: (options) => {
      for (const option of options.options) labels[option.value as string] = option.label;
      return Promise.resolve("once");
    },
    note: () => {},
    isCancel: (value): value is symbol => typeof value === "symbol",
  };
  assertEquals(await new InteractiveBroker(prompts).ask(request), "once");
  assertEquals(labels.always, "Always allow bash(echo again *) in this session");
  assertEquals(labels["always-here"], "Always allow bash(echo again *) in this project");
});

Deno.test("chat approval: [a] and [h] name the rule they store, and the answer line repeats it", async () => {
  const printed: string[] = [];
  let consumer: ((key: { kind: string; text?: string }) => void) | undefined;
  const broker = new InlineBroker({
    borrow(next) {
      consumer = next;
      return () => (consumer = undefined);
    },
    print: (text) => printed.push(text),
  });
  const answer = broker.ask(request);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert(consumer, "the question did not take the keys");
  assertStringIncludes(printed[0], "[a] always bash(echo again *) (this session)");
  assertStringIncludes(
    printed[0],
    "[h] always bash(echo again *) in this project",
  );
  consumer({ kind: "text", text: "a" });
  assertEquals(await answer, "always");
  assertStringIncludes(printed.at(-1)!, "→ always bash(echo again *) (this session)");
});

Deno.test("approval: a rule for every call of a tool reads as the tool's name; none, no always", () => {
  assertEquals(
    describeAlwaysRules({ ...request, always: [{ key: "webfetch", patterns: ["*"] }] }),
    "webfetch",
  );
  assertEquals(describeAlwaysRules({ ...request, always: [{ key: "bash", patterns: [] }] }), "");
});
