import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/permission/broker.ts";
import { InteractiveBroker, type PromptFunctions } from "../../src/ui/interactive_broker.ts";

function request(always: ApprovalRequest["always"]): ApprovalRequest {
  return {
    tool: "bash",
    access: { key: "bash", patterns: ["git log -n5"], commands: ["git log -n5"] },
    decision: {
      action: "ask",
      reason: "bash(git log -n5): no rule matches; the default is ask",
      checks: [],
    },
    always,
  };
}

function fakePrompts(
  answer: ApprovalAnswer | symbol,
  shown: string[],
  offered: string[][],
): PromptFunctions {
  return {
    select: (options) => {
      offered.push(options.options.map((o) => o.value));
      return Promise.resolve(answer);
    },
    note: (message, title) => void shown.push(`${title}\n${message}`),
    isCancel: (value): value is symbol => typeof value === "symbol",
  };
}

Deno.test("interactive: shows the command, offers once/always/always-here/deny", async () => {
  const shown: string[] = [];
  const offered: string[][] = [];
  const broker = new InteractiveBroker(fakePrompts("always", shown, offered));
  const answer = await broker.ask(request([{ key: "bash", patterns: ["git log *"] }]));
  assertEquals(answer, "always");
  assertEquals(offered[0], ["once", "always", "always-here", "deny"]);
  assertStringIncludes(shown[0], "git log -n5");
  assertStringIncludes(shown[0], "bash wants permission");
});

Deno.test("interactive: Ctrl-C (cancel) interrupts the run; no always options without patterns", async () => {
  const offered: string[][] = [];
  const broker = new InteractiveBroker(fakePrompts(Symbol("cancel"), [], offered));
  assertEquals(await broker.ask(request([])), "interrupt");
  assertEquals(offered[0], ["once", "deny"]);
});
