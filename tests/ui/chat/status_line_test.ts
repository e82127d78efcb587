import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { formatStatusLine } from "../../../src/ui/chat/status_line.ts";
import { canRedraw, chatColour, makeStyle } from "../../../src/ui/chat/style.ts";
import { textWidth } from "../../../src/ui/chat/width.ts";
import { stripAnsi } from "./_terminal.ts";

const info = {
  model: "anthropic/claude-sonnet-4-5-20250929",
  agent: "build",
  sandbox: "workspace-write",
  window: 200_000,
  contextTokens: 50_000,
  totalTokens: 123_456,
  costUsd: 0.4321,
};

const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });

Deno.test("the status line names model, agent, sandbox, context %, tokens and cost, and fits 80 columns", () => {
  const line = formatStatusLine({ ...info, model: "gpt-4o" }, undefined, makeStyle(false), 79);
  assertEquals(line, "gpt-4o · build · workspace-write · ctx 25% · 123k tok · $0.43");
  // A long model name: the least useful parts give way so the line fits.
  const long = formatStatusLine(info, undefined, makeStyle(false), 79);
  assertEquals(long, "anthropic/claude-sonnet-4-5-20250929 · build · ctx 25% · 123k tok");
});

Deno.test("while working, a spinner and the elapsed time lead the status line; it still fits", () => {
  for (const columns of [79, 60, 40, 20]) {
    for (const color of [false, true]) {
      const line = formatStatusLine(
        info,
        { since: 0, now: 75_000, frame: 3, doing: "bash" },
        makeStyle(color),
        columns,
      );
      assert(textWidth(line) <= columns, `${columns}: ${line}`);
      assertStringIncludes(stripAnsi(line), "1m15s");
    }
  }
  const wide = formatStatusLine(info, { since: 0, now: 3_000, frame: 0 }, makeStyle(false), 200);
  assert(wide.startsWith("- 3s · anthropic/"), wide);
  const narrow = formatStatusLine(info, { since: 0, now: 3_000, frame: 0 }, makeStyle(false), 40);
  // Cost goes first, then the agent and sandbox; the model stays.
  assert(!narrow.includes("$"), narrow);
  assertStringIncludes(narrow, "anthropic/");
});

Deno.test("NO_COLOR and TERM=dumb give plain text; a model name's escape sequence is neutralised", () => {
  assertEquals(chatColour(env({ NO_COLOR: "1", TERM: "xterm-256color" })), false);
  assertEquals(chatColour(env({ TERM: "dumb" })), false);
  assertEquals(chatColour(env({ TERM: "xterm-256color" })), true);
  assertEquals(canRedraw(env({ TERM: "dumb" })), false);
  assertEquals(canRedraw(env({ TERM: "screen-256color" })), true);
  const plain = formatStatusLine(info, { since: 0, now: 0, frame: 1 }, makeStyle(false), 79);
  assert(!plain.includes("\x1b"), plain);
  const hostile = formatStatusLine(
    { ...info, model: "evil\x1b[2Jmodel" },
    undefined,
    makeStyle(true),
    79,
  );
  assert(!hostile.includes("\x1b[2J"));
  assertStringIncludes(hostile, "evil\\x1b[2Jmodel");
});

Deno.test("an assumed window shows ctx ?, not a percentage of a guess", () => {
  const assumed = {
    model: "local-model",
    agent: "build",
    sandbox: "workspace-write",
    window: 128_000,
    windowAssumed: true,
    contextTokens: 500,
    totalTokens: 500,
  };
  const line = formatStatusLine(assumed, undefined, makeStyle(false), 100);
  assertEquals(line, "local-model · build · workspace-write · ctx ? · 500 tok");
});
