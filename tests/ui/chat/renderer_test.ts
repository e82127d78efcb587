/**
 * The chat renderer against a fake terminal: what ends in the scrollback,
 * what the bottom region shows, and that nothing a model sends is obeyed.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { type EventBodies, type EventType, makeEvent } from "../../../src/contracts/events.ts";
import { createChatRenderer } from "../../../src/ui/chat/mod.ts";
import type { ChatRendererOptions } from "../../../src/ui/chat/mod.ts";
import { loadMarkdown } from "../../../src/ui/chat/markdown.ts";
import { preloadWidth } from "../../../src/ui/chat/width.ts";
import { FakeTerminal } from "./_terminal.ts";

// deno-lint-ignore no-control-regex -- the tests look for the renderer's own sequences
const ERASE_REGION = /\x1b\[\d+A\r\x1b\[J/;
// deno-lint-ignore no-control-regex -- the tests look for the renderer's own sequences
const CURSOR_UP = /\x1b\[(\d+)A/g;
// deno-lint-ignore no-control-regex -- the tests look for the renderer's own sequences
const SGR = /\x1b\[[0-9;]*m/;

async function setup(options: ChatRendererOptions = {}, columns = 80) {
  await loadMarkdown();
  await preloadWidth();
  const terminal = new FakeTerminal(columns);
  const renderer = createChatRenderer({
    output: terminal,
    columns,
    rows: 24,
    color: false,
    redraw: true,
    spinnerEveryMs: 0,
    now: () => 0,
    status: { model: "gpt-4o", agent: "build", sandbox: "workspace-write", window: 100_000 },
    ...options,
  });
  const emit = <K extends EventType>(type: K, body: EventBodies[K]) =>
    renderer.event(makeEvent(type, "sess-1", body));
  return { terminal, renderer, emit };
}

const usage = { input_tokens: 25_000, output_tokens: 500, total_tokens: 25_500 };
const todo = (content: string, status: "pending" | "in_progress" | "completed") => ({
  content,
  status,
  priority: "medium",
});

Deno.test("the answer and tool lines go to the scrollback; input and status stay at the bottom", async () => {
  const { terminal, renderer, emit } = await setup();
  renderer.setInput("", 0);
  emit("turn.started", { turn: 1 });
  const answer = "# Result\n\nAll **good**.\n\n- one\n- two\n";
  for (const char of answer) emit("message.delta", { turn: 1, text: char });
  emit("message.completed", { turn: 1, text: answer });
  emit("tool.started", { turn: 1, call_id: "c1", tool: "bash", input: { command: "ls" } });
  emit("tool.completed", {
    turn: 1,
    call_id: "c1",
    tool: "bash",
    ok: true,
    title: "ls",
    output: "a\nb",
    metadata: { exitCode: 0 },
    duration_ms: 40,
  });
  emit("turn.completed", { turn: 1, usage });
  emit("session.completed", { text: answer, usage, turns: 1, exit_code: 0, denials: [] });
  renderer.setInput("next question", 13);
  assertEquals(
    terminal.text(),
    [
      "# Result",
      "",
      "All **good**.",
      "",
      "• one",
      "• two",
      "✓ bash ls (exit 0) 40ms",
      "  a",
      "  b",
      "> next question",
      "gpt-4o · build · workspace-write · ctx 25% · 26k tok",
    ].join("\n"),
  );
  // The cursor waits after the typed text, on the input row.
  assertEquals([terminal.row, terminal.column], [9, 15]);
  renderer.setInput("next question", 4);
  assertEquals([terminal.row, terminal.column], [9, 6]);
  renderer.dispose();
  assertEquals(terminal.text().split("\n").at(-1), "  b");
});

Deno.test("the todo checklist is redrawn in place, never repeated in the scrollback", async () => {
  const { terminal, renderer, emit } = await setup();
  renderer.setInput("", 0);
  emit("turn.started", { turn: 1 });
  emit("tool.started", {
    turn: 1,
    call_id: "t1",
    tool: "todowrite",
    input: { todos: [todo("Read the code", "in_progress"), todo("Fix the bug", "pending")] },
  });
  emit("tool.completed", {
    turn: 1,
    call_id: "t1",
    tool: "todowrite",
    ok: true,
    title: "2 open",
    output: "",
    duration_ms: 1,
  });
  assertStringIncludes(terminal.text(), "Todo 0/2\n  ◼ Read the code\n  ☐ Fix the bug\n>");
  const rawBefore = terminal.raw.length;
  emit("tool.started", {
    turn: 1,
    call_id: "t2",
    tool: "todowrite",
    input: { todos: [todo("Read the code", "completed"), todo("Fix the bug", "in_progress")] },
  });
  const update = terminal.raw.slice(rawBefore);
  // The update erases the region (cursor up, clear below) and draws it again.
  assert(ERASE_REGION.test(update), JSON.stringify(update));
  const text = terminal.text();
  assertStringIncludes(text, "Todo 1/2\n  ☒ Read the code\n  ◼ Fix the bug\n>");
  assertEquals(text.split("Todo").length, 2, text);
  assert(!text.includes("0/2"), text);
  renderer.dispose();
});

Deno.test("a model's escape sequences are shown, not obeyed, in answers, tool lines and errors", async () => {
  const { terminal, renderer, emit } = await setup({ color: true });
  renderer.setInput("", 0);
  const hostile = "Look \x1b[2J\x1b]0;owned\x07 here \x1b[1A";
  emit("message.delta", { turn: 1, text: hostile });
  emit("message.completed", { turn: 1, text: hostile });
  emit("tool.started", { turn: 1, call_id: "c1", tool: "bash", input: { command: "x\x1b[2K" } });
  emit("tool.completed", {
    turn: 1,
    call_id: "c1",
    tool: "bash",
    ok: false,
    title: "x\x1b[2K",
    output: "",
    error: { code: "failed", message: "bad \x1b[5n" },
    duration_ms: 2,
  });
  emit("warning", { message: "w \x1b[6n" });
  renderer.print("printed \x1b[?1049h");
  // FakeTerminal throws on any sequence but the renderer's own few; these are checks on top.
  for (
    const sequence of ["\x1b[2J", "\x1b]0", "\x07", "\x1b[2K", "\x1b[5n", "\x1b[6n", "\x1b[?1049h"]
  ) {
    assert(!terminal.raw.includes(sequence), JSON.stringify(sequence));
  }
  const text = terminal.text();
  assertStringIncludes(text, "Look \\x1b[2J\\x1b]0;owned\\x07 here \\x1b[1A");
  assertStringIncludes(text, "✗ bash x\\x1b[2K");
  assertStringIncludes(text, "failed: bad \\x1b[5n");
  assertStringIncludes(text, "warning: w \\x1b[6n");
  assertStringIncludes(text, "printed \\x1b[?1049h");
  renderer.dispose();
});

Deno.test("NO_COLOR gives no colour; TERM=dumb gives plain appended text with no escape at all", async () => {
  const noColour = await setup({ color: false });
  noColour.renderer.setInput("hi", 2);
  noColour.emit("turn.started", { turn: 1 });
  noColour.emit("message.delta", {
    turn: 1,
    text: "**bold** and `code`\n\n```ts\nconst a = 1\n```\n",
  });
  noColour.emit("message.completed", { turn: 1, text: "" });
  noColour.renderer.dispose();
  assert(!SGR.test(noColour.terminal.raw), "no SGR with colour off");

  const dumb = await setup({ color: false, redraw: false });
  dumb.renderer.setInput("typed", 5);
  dumb.emit("turn.started", { turn: 1 });
  dumb.emit("message.delta", { turn: 1, text: "Hello **there**.\n\nSecond" });
  dumb.emit("message.delta", { turn: 1, text: " paragraph." });
  dumb.emit("message.completed", { turn: 1, text: "" });
  dumb.emit("tool.started", {
    turn: 1,
    call_id: "t1",
    tool: "todowrite",
    input: { todos: [todo("Step one", "in_progress")] },
  });
  dumb.emit("turn.completed", { turn: 1, usage });
  dumb.emit("session.completed", { text: "", usage, turns: 1, exit_code: 0, denials: [] });
  dumb.renderer.dispose();
  assert(!dumb.terminal.raw.includes("\x1b"), JSON.stringify(dumb.terminal.raw));
  assertEquals(
    dumb.terminal.text(),
    [
      "Hello **there**.",
      "",
      "Second paragraph.",
      "Todo 0/1",
      "  ◼ Step one",
      "gpt-4o · build · workspace-write · ctx 25% · 26k tok",
    ].join("\n"),
  );
});

Deno.test("at 80×24 the bottom region never takes the whole screen, even for a long growing block", async () => {
  const { terminal, renderer, emit } = await setup();
  renderer.setInput("", 0);
  emit("turn.started", { turn: 1 });
  emit("message.delta", { turn: 1, text: "```\n" });
  for (let line = 1; line <= 60; line++) emit("message.delta", { turn: 1, text: `code ${line}\n` });
  const ups = [...terminal.raw.matchAll(CURSOR_UP)].map((match) => Number(match[1]));
  assert(Math.max(...ups) <= 22, `moved up ${Math.max(...ups)} rows`);
  // The newest lines of the growing block are the ones in view.
  assertStringIncludes(terminal.text(), "code 60\n```\n>");
  emit("message.delta", { turn: 1, text: "```\n" });
  emit("message.completed", { turn: 1, text: "" });
  // Finished, the whole block is in the scrollback once.
  const text = terminal.text();
  assertEquals(text.split("code 1\n").length, 2);
  assertStringIncludes(text, "code 59\ncode 60\n```\n>");
  renderer.dispose();
});

Deno.test("a wide CJK/emoji answer wraps at the terminal's column, not past it", async () => {
  const { terminal, renderer, emit } = await setup({}, 30);
  renderer.setInput("", 0);
  const text = "日本語のテキストはとても長いので折り返されます👍👍👍 end";
  emit("message.delta", { turn: 1, text });
  emit("message.completed", { turn: 1, text });
  renderer.dispose();
  const rows = terminal.text().split("\n");
  assertEquals(rows.slice(0, 2), ["日本語のテキストはとても長い", "ので折り返されます👍👍👍 end"]);
});

Deno.test("a resize redraws the bottom region at the new width", async () => {
  const { terminal, renderer, emit } = await setup({
    status: { model: "m", agent: "", sandbox: "", window: 0 },
  });
  renderer.setInput("hi", 2);
  emit("message.delta", { turn: 1, text: "Answer." });
  emit("message.completed", { turn: 1, text: "" });
  emit("session.completed", { text: "", usage, turns: 1, exit_code: 0, denials: [] });
  terminal.columns = 20;
  renderer.resize(20, 10);
  renderer.setStatus({ model: "a-model-with-a-long-name", totalTokens: 1_234 });
  const rows = terminal.text().split("\n");
  assertEquals(rows, ["Answer.", "> hi", "a-model-with-a-lon…"]);
  renderer.dispose();
});

Deno.test("expanding a tool call writes its whole output below", async () => {
  const { terminal, renderer, emit } = await setup();
  const output = Array.from({ length: 12 }, (_, index) => `row ${index + 1}`).join("\n");
  emit("tool.completed", {
    turn: 1,
    call_id: "c9",
    tool: "bash",
    ok: true,
    title: "seq 12",
    output,
    metadata: { exitCode: 0 },
    duration_ms: 5,
  });
  assertStringIncludes(terminal.text(), "… 8 more lines, 12 in all (Ctrl-O expands)");
  renderer.expandTool();
  assertStringIncludes(terminal.text(), "row 11\n  row 12");
  renderer.dispose();
});

Deno.test("the status line adds up tokens and cost over turns, and follows a compaction", async () => {
  const { terminal, renderer, emit } = await setup();
  renderer.setInput("", 0);
  emit("turn.completed", { turn: 1, usage: { ...usage, cost_usd: 0.25 } });
  emit("turn.completed", { turn: 2, usage: { ...usage, input_tokens: 60_000, cost_usd: 0.5 } });
  emit("session.completed", { text: "", usage, turns: 2, exit_code: 0, denials: [] });
  assertEquals(
    terminal.text().split("\n").at(-1),
    "gpt-4o · build · workspace-write · ctx 60% · 51k tok · $0.75",
  );
  emit("context.compacted", {
    turn: 3,
    kind: "summary",
    trigger: "threshold",
    tokens_before: 60_000,
    tokens_after: 12_000,
    window: 100_000,
    pruned: 0,
    replaced: 14,
  });
  const rows = terminal.text().split("\n");
  assertEquals(
    rows.at(-3),
    "⋯ context compacted: 60k → 12k tokens, older messages summarised (14)",
  );
  assertEquals(rows.at(-1), "gpt-4o · build · workspace-write · ctx 12% · 51k tok · $0.75");
  renderer.dispose();
});

Deno.test("reasoning shows as one dimmed line while it streams, then one collapsed line above the answer", async () => {
  const { terminal, renderer, emit } = await setup();
  renderer.setInput("", 0);
  emit("turn.started", { turn: 1 });
  for (const text of ["First I look", " at the file.\n", "Then I answer."]) {
    emit("reasoning.delta", { turn: 1, text });
  }
  const streaming = terminal.text();
  assertStringIncludes(streaming, "thinking… 2 lines  Then I answer.");
  assert(!streaming.includes("First I look at the file."), "the reasoning itself stays collapsed");
  emit("message.delta", { turn: 1, text: "The answer.\n" });
  emit("message.completed", { turn: 1, text: "The answer.\n" });
  const text = terminal.text();
  assertStringIncludes(text, "✻ thought for 2 lines\nThe answer.");
  assert(!text.includes("thinking…"), "the streaming line is gone");
});

Deno.test("the last prompt's reasoning is written out whole on request, dimmed and wrapped", async () => {
  const { terminal, renderer, emit } = await setup({}, 60);
  renderer.setInput("", 0);
  emit("session.started", { workspace: "/w", model: "m", agent: "build", resumed: false });
  emit("reasoning.delta", { turn: 1, text: "First I look at the file.\n" });
  emit("tool.started", { turn: 1, call_id: "c1", tool: "bash", input: { command: "ls" } });
  emit("tool.completed", {
    turn: 1,
    call_id: "c1",
    tool: "bash",
    ok: true,
    title: "ls",
    output: "",
    duration_ms: 1,
  });
  const long = "word ".repeat(30).trim();
  emit("reasoning.delta", { turn: 2, text: `Then I answer.\n${long}` });
  emit("message.delta", { turn: 2, text: "The answer.\n" });
  emit("message.completed", { turn: 2, text: "The answer.\n" });
  assert(!terminal.text().includes("First I look"), "collapsed by default");
  assertEquals(renderer.expandReasoning(), true);
  const text = terminal.text();
  assertStringIncludes(
    text,
    "✻ reasoning, 4 lines:\n  First I look at the file.\n\n  Then I answer.\n",
  );
  // Wrapped within 60 columns, each row indented.
  const rows = text.split("\n").filter((row) => row.startsWith("  word"));
  assert(rows.length >= 3, text);
  for (const row of rows) assert(row.length <= 59, row);
  // A new prompt's reasoning replaces it.
  emit("session.started", { workspace: "/w", model: "m", agent: "build", resumed: false });
  emit("message.delta", { turn: 1, text: "No thought.\n" });
  emit("message.completed", { turn: 1, text: "No thought.\n" });
  assertEquals(renderer.expandReasoning(), false);
  assertEquals(renderer.expandReasoning(() => "stored thought"), true);
  assertStringIncludes(terminal.text(), "✻ reasoning, 1 line:\n  stored thought");
  renderer.dispose();
});

Deno.test("reasoning shown streams into the scrollback as it comes, then its collapsed line", async () => {
  const { terminal, renderer, emit } = await setup({ color: true });
  renderer.setInput("", 0);
  emit("reasoning.delta", { turn: 1, text: "Already here.\nHalf" });
  renderer.showReasoning(true);
  assertEquals(renderer.reasoningShown, true);
  assertStringIncludes(terminal.text(), "  Already here.");
  assert(!terminal.text().includes("\n  Half"), "a line still growing waits");
  emit("reasoning.delta", { turn: 1, text: " a line\n\x1b]0;title\x07done" });
  emit("message.delta", { turn: 1, text: "The answer.\n" });
  emit("message.completed", { turn: 1, text: "The answer.\n" });
  const text = terminal.text();
  assertStringIncludes(text, "  Already here.\n  Half a line\n");
  assertStringIncludes(text, "done\n✻ thought for 3 lines\nThe answer.");
  assert(!terminal.raw.includes("\x1b]0;"), "the model's escape is shown, not obeyed");
  assert(SGR.test(terminal.raw));
  renderer.showReasoning(false);
  emit("reasoning.delta", { turn: 2, text: "Hidden again.\n" });
  emit("message.delta", { turn: 2, text: "Two.\n" });
  emit("message.completed", { turn: 2, text: "Two.\n" });
  assert(!terminal.text().includes("Hidden again."), terminal.text());
  renderer.dispose();
});

Deno.test("a long block leaving the bottom region is never drawn there again under its own text", async () => {
  const { terminal, renderer, emit } = await setup();
  renderer.setInput("", 0);
  emit("turn.started", { turn: 1 });
  const items = Array.from({ length: 60 }, (_, index) => `- item ${index}`).join("\n");
  for (const line of items.split("\n")) emit("message.delta", { turn: 1, text: `${line}\n` });
  // The next block starts: the list goes to the scrollback, and the region under it is the
  // new block's; a region drawn at the list's height and then cut would leave empty rows.
  let before = terminal.raw.length;
  emit("message.delta", { turn: 1, text: "\nThe end of it.\n" });
  const written = terminal.raw.slice(before);
  assertEquals(written.split("item 59").length - 1, 1, "the list's last row written once");
  // The answer ends with a long last block: the same.
  for (const line of items.split("\n")) emit("message.delta", { turn: 1, text: `\n${line}` });
  before = terminal.raw.length;
  emit("message.completed", { turn: 1, text: "" });
  assertEquals(terminal.raw.slice(before).split("item 59").length - 1, 1);
  assertStringIncludes(terminal.text(), "• item 59\n>\n");
  renderer.dispose();
});

Deno.test("TERM=dumb: the user's message and the answer are on lines of their own", async () => {
  const dumb = await setup({ color: false, redraw: false });
  dumb.renderer.print("› what is this?");
  dumb.emit("turn.started", { turn: 1 });
  dumb.emit("message.delta", { turn: 1, text: "It is a test." });
  dumb.emit("message.completed", { turn: 1, text: "" });
  dumb.renderer.print("› and then?");
  dumb.renderer.dispose();
  assertStringIncludes(dumb.terminal.text(), "› what is this?\nIt is a test.\n");
  assertStringIncludes(dumb.terminal.text(), "\n› and then?");
});
