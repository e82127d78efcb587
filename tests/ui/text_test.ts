/**
 * Text mode: the answer on stdout, one line per tool call on stderr, and a
 * note now and then while a call runs long.
 */
import { assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { textRenderer, toolLine } from "../../src/ui/text.ts";
import { makeEvent } from "../../src/session/events.ts";

function capture() {
  let text = "";
  return {
    sink: {
      writeSync(data: Uint8Array) {
        text += new TextDecoder().decode(data);
        return data.length;
      },
    },
    get text() {
      return text;
    },
  };
}

const completed = (ok: boolean, extra: Record<string, unknown> = {}) =>
  makeEvent("tool.completed", "s", {
    turn: 1,
    call_id: "c1",
    tool: "read",
    ok,
    title: ok ? "src/app.ts (120 lines)" : "",
    output: "",
    duration_ms: 3,
    ...extra,
  });

Deno.test("the answer streams to stdout and tool calls become one stderr line each", () => {
  const stdout = capture();
  const stderr = capture();
  const render = textRenderer({ stdout: stdout.sink, stderr: stderr.sink, progressEveryMs: 0 });
  render(makeEvent("tool.started", "s", { turn: 1, call_id: "c1", tool: "read", input: {} }));
  render(completed(true));
  render(makeEvent("message.delta", "s", { turn: 2, text: "The app " }));
  render(makeEvent("message.delta", "s", { turn: 2, text: "starts here." }));
  render(makeEvent("message.completed", "s", { turn: 2, text: "The app starts here." }));
  assertEquals(stdout.text, "The app starts here.\n");
  assertEquals(stderr.text, "✓ read src/app.ts (120 lines)\n");
});

Deno.test("a failed call names its input, code and message; --quiet hides tool lines", () => {
  const line = toolLine(
    completed(false, { error: { code: "no_match", message: "not found\nmore" } }),
    { file_path: "a.ts" },
  );
  assertEquals(line, "✗ read a.ts — no_match: not found");
  const stderr = capture();
  const render = textRenderer({ stdout: capture().sink, stderr: stderr.sink, quiet: true });
  render(completed(true));
  assertEquals(stderr.text, "");
});

Deno.test("a long call is reported while it runs, and the reports stop when it ends", async () => {
  const stderr = capture();
  const render = textRenderer({ stdout: capture().sink, stderr: stderr.sink, progressEveryMs: 30 });
  render(makeEvent("tool.started", "s", {
    turn: 1,
    call_id: "c1",
    tool: "bash",
    input: { command: "npm test" },
  }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  render(completed(true, { tool: "bash", title: "npm test (exit 0)" }));
  const reports = stderr.text.split("\n").filter((line) => line.startsWith("…"));
  assertMatch(reports[0], /^… bash npm test \(running \d+s\)$/);
  const afterEnd = stderr.text.length;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assertEquals(stderr.text.length, afterEnd, "no more reports after the call ended");
  assertStringIncludes(stderr.text, "✓ bash npm test (exit 0)");
});

Deno.test("refused calls are listed with the flag that allows them, even with --quiet", () => {
  const stdout = capture();
  const stderr = capture();
  const render = textRenderer({
    stdout: stdout.sink,
    stderr: stderr.sink,
    quiet: true,
    progressEveryMs: 0,
  });
  render(makeEvent("session.completed", "s", {
    text: "I could not run it.",
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    turns: 2,
    exit_code: 3,
    denials: [{
      tool: "bash",
      key: "bash",
      patterns: ["touch made-by-bash"],
      reason: "Permission needed but nobody can approve it in this headless run: ask rule.",
    }],
  }));
  assertStringIncludes(stderr.text, "1 call was refused");
  assertStringIncludes(stderr.text, "bash(touch made-by-bash) — Permission needed");
  assertStringIncludes(stderr.text, "--allow 'bash(touch made-by-bash)'");
  assertEquals(stdout.text, "");
});
