/**
 * `skiff run`'s approval question (InteractiveBroker) offers deny with a
 * reason: the typed reason becomes `{ deny: reason }`, which `approves()`
 * refuses and the gate gives the model as the call's result.
 */
import { assertEquals } from "../support/assert.ts";
import { type ApprovalRequest, approves, denialReason } from "../../src/permission/broker.ts";
import {
  type ChoiceAnswer,
  InteractiveBroker,
  NO_REASON,
  type PromptFunctions,
} from "../../src/ui/interactive_broker.ts";

const request: ApprovalRequest = {
  tool: "bash",
  access: { key: "bash", patterns: ["psql prod"], commands: ["psql prod"] },
  decision: { action: "ask", reason: "bash(psql prod): the default is ask", checks: [] },
  always: [{ key: "bash", patterns: ["psql *"] }],
};

const CANCEL = Symbol("cancel");

/** Prompts that answer from two scripts: the choices picked, the texts typed. */
function scripted(choices: (ChoiceAnswer | symbol)[], texts: (string | symbol)[]) {
  const offered: ChoiceAnswer[][] = [];
  const asked: string[] = [];
  const prompts: PromptFunctions = {
    select: (options) => {
      offered.push(options.options.map((option) => option.value));
      return Promise.resolve(choices.shift()!);
    },
    text: (options) => {
      asked.push(options.message);
      return Promise.resolve(texts.shift()!);
    },
    note: () => {},
    isCancel: (value): value is symbol => typeof value === "symbol",
  };
  return { prompts, offered, asked };
}

Deno.test("run's approval: deny with a reason answers { deny: reason }, which approves() refuses", async () => {
  const { prompts, offered, asked } = scripted(["reason"], ["  use the staging database  "]);
  const answer = await new InteractiveBroker(prompts).ask(request);
  assertEquals(offered[0], ["once", "always", "always-here", "deny", "reason"]);
  assertEquals(asked.length, 1);
  assertEquals(answer, { deny: "use the staging database" });
  assertEquals(approves(answer), false);
  assertEquals(denialReason(answer), "use the staging database");
});

Deno.test("run's approval: an empty reason is still a refusal, sent as '(no reason given)'", async () => {
  const { prompts } = scripted(["reason"], ["   "]);
  const answer = await new InteractiveBroker(prompts).ask(request);
  assertEquals(answer, { deny: NO_REASON });
  assertEquals(approves(answer), false);
});

Deno.test("run's approval: Esc while typing the reason goes back to the choices", async () => {
  const { prompts, offered } = scripted(["reason", "deny"], [CANCEL]);
  const answer = await new InteractiveBroker(prompts).ask(request);
  assertEquals(offered.length, 2, "the choices are offered again");
  assertEquals(answer, "deny");
});

Deno.test("run's approval: prompts without a text field do not offer a reason", async () => {
  const { prompts, offered } = scripted(["once"], []);
  delete prompts.text;
  assertEquals(await new InteractiveBroker(prompts).ask(request), "once");
  assertEquals(offered[0].includes("reason"), false);
});
