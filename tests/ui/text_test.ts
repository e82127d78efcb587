/**
 * Text mode: the answer on stdout, one line per tool call on stderr, and a
 * note now and then while a call runs long.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { textRenderer, toolLine } from "../../src/ui/text.ts";
import { emptyUsage, makeEvent } from "../../src/contracts/events.ts";

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

Deno.test("refused calls are listed with the flags that allow them, even with --quiet", () => {
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
      reason: "bash(touch made-by-bash): no rule matches; the default is ask",
      allow_with: ["--allow", "bash(touch made-by-bash *)", "--sandbox", "full-access"],
    }, {
      tool: "bash",
      key: "bash",
      patterns: ["rm -rf build"],
      reason: "bash(rm *) → deny [flags]",
    }],
  }));
  assertEquals(
    stderr.text,
    [
      "skiff: 2 calls were refused:",
      "  bash touch made-by-bash",
      "    why: bash(touch made-by-bash): no rule matches; the default is ask",
      "    to allow it, add to the command: --allow 'bash(touch made-by-bash *)' --sandbox full-access",
      "  bash rm -rf build",
      "    why: bash(rm *) → deny [flags]",
      "    no flag allows it (a deny rule always wins)",
      "",
    ].join("\n"),
  );
  assertEquals(stdout.text, "");
});

Deno.test("the answer, titles, commands, errors and denials are shown with their escapes visible", () => {
  const stdout = capture();
  const stderr = capture();
  const render = textRenderer({ stdout: stdout.sink, stderr: stderr.sink, progressEveryMs: 0 });
  const hidden = "rm -rf ~\r\x1b[2Kgit status";
  render(makeEvent("message.delta", "s", { turn: 1, text: "Done\x1b]0;owned\x07 \u202eok\x9b1m" }));
  render(makeEvent("message.completed", "s", { turn: 1, text: "" }));
  render(makeEvent("tool.started", "s", { turn: 1, call_id: "c1", tool: "bash", input: {} }));
  render(completed(true, { call_id: "c1", tool: "bash", title: "\x1b[1A\x1b[2Klooks fine" }));
  render(makeEvent("tool.started", "s", {
    turn: 1,
    call_id: "c2",
    tool: "bash",
    input: { command: hidden },
  }));
  render(completed(false, {
    call_id: "c2",
    tool: "bash",
    error: { code: "denied", message: "no\x1b[8m hidden" },
  }));
  render(makeEvent("warning", "s", { message: "saved bash(\x1b[2K*)" }));
  render(makeEvent("session.completed", "s", {
    text: "",
    exit_code: 3,
    turns: 1,
    usage: emptyUsage(),
    denials: [{ tool: "bash", key: "bash", patterns: [hidden], reason: "ask\rrule" }],
  }));
  assertEquals(stdout.text, "Done\\x1b]0;owned\\x07 \\u202eok\\x9b1m\n");
  assertStringIncludes(stderr.text, "✓ bash \\x1b[1A\\x1b[2Klooks fine\n");
  assertStringIncludes(
    stderr.text,
    "✗ bash rm -rf ~\\r\\x1b[2Kgit status — denied: no\\x1b[8m hidden",
  );
  assertStringIncludes(stderr.text, "warning: saved bash(\\x1b[2K*)");
  assertStringIncludes(stderr.text, "  bash rm -rf ~\\r\\x1b[2Kgit status\n    why: ask\\rrule");
  // deno-lint-ignore no-control-regex -- looking for control characters
  const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
  assert(!controls.test(stdout.text + stderr.text), JSON.stringify(stdout.text + stderr.text));
});

Deno.test("a command's exit code is shown, and a non-zero exit is marked failed", () => {
  const bash = (exitCode: number, title: string) =>
    toolLine(completed(true, { tool: "bash", title, metadata: { exitCode } }));
  assertEquals(bash(0, "npm test"), "✓ bash npm test (exit 0)");
  assertEquals(bash(1, "false"), "✗ bash false (exit 1)");
  assertEquals(
    toolLine(completed(true, { tool: "bash", title: "sleep 9", metadata: { signal: "SIGKILL" } })),
    "✗ bash sleep 9 (killed by SIGKILL)",
  );
});

const DIFF = [
  "--- a/a.ts",
  "+++ b/a.ts",
  "@@ -1,2 +1,2 @@",
  " keep",
  "-old\x1b[2K",
  "+new",
].join("\n") + "\n";

const edited = (diff: string) =>
  completed(true, {
    tool: "edit",
    title: "a.ts (+1 -1)",
    metadata: { diff, additions: 1, deletions: 1 },
  });

Deno.test("an edit's diff is shown under its line: plain in a log, escapes visible", () => {
  const stderr = capture();
  const render = textRenderer({
    stdout: capture().sink,
    stderr: stderr.sink,
    progressEveryMs: 0,
    colour: false,
  });
  render(edited(DIFF));
  assertEquals(
    stderr.text,
    [
      "✓ edit a.ts (+1 -1)",
      "  --- a/a.ts",
      "  +++ b/a.ts",
      "  @@ -1,2 +1,2 @@",
      "   keep",
      "  -old\\x1b[2K",
      "  +new",
      "",
    ].join("\n"),
  );
});

Deno.test("at a terminal the diff is coloured; a long one is cut with a count; --quiet hides it", () => {
  const stderr = capture();
  const render = textRenderer({
    stdout: capture().sink,
    stderr: stderr.sink,
    progressEveryMs: 0,
    colour: true,
  });
  render(edited(DIFF));
  assertStringIncludes(stderr.text, "  \x1b[32m+new\x1b[0m\n");
  assertStringIncludes(stderr.text, "  \x1b[31m-old\\x1b[2K\x1b[0m\n");
  // The model's escape is shown, never obeyed: the only escapes are skiff's colours.
  // deno-lint-ignore no-control-regex -- counting skiff's own colour escapes
  const escapes = stderr.text.match(/\x1b\[[0-9;]*m/g) ?? [];
  assertEquals(stderr.text.split("\x1b").length - 1, escapes.length);

  const long = "@@ -1,100 +1,100 @@\n" +
    Array.from({ length: 100 }, (_, i) => `+line ${i}`).join("\n");
  const logged = capture();
  textRenderer({ stdout: capture().sink, stderr: logged.sink, progressEveryMs: 0, colour: false })(
    edited(long),
  );
  const lines = logged.text.trimEnd().split("\n");
  assertEquals(lines.length, 1 + 60 + 1);
  assertEquals(lines.at(-1), "  … 41 more diff lines (all of it: skiff sessions export s)");

  const quiet = capture();
  textRenderer({ stdout: capture().sink, stderr: quiet.sink, quiet: true })(edited(DIFF));
  assertEquals(quiet.text, "");
});

Deno.test("a command's line names the command; the model's description follows, marked, dimmed only when colour is on", () => {
  const event = completed(true, { tool: "bash", title: "false", metadata: { exitCode: 1 } });
  const input = { command: "false", description: "run the tests\x1b[2K" };
  assertEquals(toolLine(event, input), "✗ bash false (exit 1)  # run the tests\\x1b[2K");
  assertEquals(
    toolLine(event, input, (text) => `<dim>${text}</dim>`),
    "✗ bash false (exit 1)  <dim># run the tests\\x1b[2K</dim>",
  );
  // A failure with no title names the command, not the label, and a second line is shown.
  const failed = completed(false, {
    tool: "bash",
    title: "",
    error: { code: "timeout", message: "timed out" },
  });
  assertEquals(
    toolLine(failed, { command: "echo ok\nrm -rf x", description: "run the tests" }),
    "✗ bash echo ok ⏎ rm -rf x  # run the tests — timeout: timed out",
  );
  // No label, or the same text as the command: nothing follows.
  assertEquals(toolLine(event, { command: "false" }), "✗ bash false (exit 1)");
  assertEquals(
    toolLine(event, { command: "false", description: "false" }),
    "✗ bash false (exit 1)",
  );
});
