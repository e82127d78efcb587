/**
 * The chat's inline approval, driven key by key: each answer, and "no, and
 * here is why" with the reason typed, edited and sent as the answer.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { InlineBroker } from "../../src/ui/interactive_broker.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/permission/broker.ts";

type Key = { kind: string; text?: string };

function terminal() {
  const printed: string[] = [];
  const lines: (string | undefined)[] = [];
  let consumer: ((key: Key) => void) | undefined;
  return {
    printed,
    lines,
    press: (...keys: Key[]) => keys.forEach((key) => consumer?.(key)),
    borrowed: () => consumer !== undefined,
    io: {
      borrow(next: (key: Key) => void) {
        consumer = next;
        return () => (consumer = undefined);
      },
      print: (text: string) => printed.push(text),
      editLine: (text: string | undefined) => lines.push(text),
    },
  };
}

const request: ApprovalRequest = {
  tool: "bash",
  callId: "c1",
  access: { key: "bash", patterns: ["rm -rf build"], commands: ["rm -rf build"] },
  decision: { action: "ask", reason: "rm is not allowed by default", checks: [] },
  always: [{ key: "bash", patterns: ["rm *"] }],
};

const text = (value: string): Key => ({ kind: "text", text: value });

Deno.test("inline approval: r, a typed reason and Enter answer a deny that carries it", async () => {
  const screen = terminal();
  const answer = new InlineBroker(screen.io).ask(request);
  await Promise.resolve();
  await Promise.resolve();
  assertStringIncludes(screen.printed[0], "[r] no, and tell the model why");
  screen.press(text("r"), text("keep the buildx"), { kind: "backspace" }, text(" cache"));
  assertEquals(screen.lines.at(-1), "keep the build cache");
  screen.press({ kind: "enter" });
  assertEquals(await answer, { deny: "keep the build cache" });
  assertEquals(screen.lines.at(-1), undefined, "the input is shown again");
  assertStringIncludes(screen.printed.at(-1)!, "no: keep the build cache");
  assertEquals(screen.borrowed(), false, "the keys are given back");
});

Deno.test("inline approval: Esc while typing the reason goes back to the choices", async () => {
  const screen = terminal();
  const answer = new InlineBroker(screen.io).ask(request);
  await Promise.resolve();
  await Promise.resolve();
  screen.press(text("r"), text("hm"), { kind: "escape" }, text("n"));
  assertEquals(await answer, "deny");
});

Deno.test("inline approval: y, a, h, Enter and Esc answer as labelled", async () => {
  const cases: [Key, string][] = [
    [text("y"), "once"],
    [text("a"), "always"],
    [text("h"), "always-here"],
    [{ kind: "enter" }, "once"],
    [{ kind: "escape" }, "interrupt"],
  ];
  for (const [key, expected] of cases) {
    const screen = terminal();
    const answer = new InlineBroker(screen.io).ask(request);
    await Promise.resolve();
    await Promise.resolve();
    screen.press(text("x"), key);
    assertEquals(await answer as string, expected);
  }
});

Deno.test("the trust question's answers mean what they say: remember, this run only, or no; no reason to type", async () => {
  const trust: ApprovalRequest = {
    tool: "project",
    access: { key: "trust_project", patterns: ["/p"], preview: "skiff.json: bash(echo *)" },
    decision: { action: "ask", reason: "trust this project?", checks: [] },
    always: [],
    subject: "project-trust",
  };
  for (
    const [keys, expected] of [
      [[{ kind: "enter" }], "always-here"],
      [[text("y")], "always-here"],
      [[text("o")], "once"],
      [[text("n")], "deny"],
      [[text("r"), text("a"), text("y")], "always-here"],
    ] as [Key[], ApprovalAnswer][]
  ) {
    const screen = terminal();
    const answer = new InlineBroker(screen.io).ask(trust);
    await Promise.resolve();
    await Promise.resolve();
    const question = screen.printed[0];
    assertStringIncludes(question, "trust this project?");
    assertStringIncludes(question, "[y] trust it, and remember that");
    assertStringIncludes(question, "[o] trust it for this run only");
    assertEquals(question.includes("tell the model why"), false, question);
    // "r" and "a" mean nothing here: the next key that is a choice answers.
    screen.press(...keys);
    assertEquals(await answer, expected, JSON.stringify(keys));
  }
});
