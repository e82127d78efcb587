import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeEvent } from "../../../src/contracts/events.ts";
import { formatDuration, formatToolCall } from "../../../src/ui/chat/tool_line.ts";
import { makeStyle } from "../../../src/ui/chat/style.ts";
import { stripAnsi } from "./_terminal.ts";

type Completed = Parameters<typeof formatToolCall>[0];

function completed(body: Partial<Omit<Completed, "type">>): Completed {
  return makeEvent("tool.completed", "sess-1", {
    turn: 1,
    call_id: "c1",
    tool: "read",
    ok: true,
    title: "",
    output: "",
    duration_ms: 0,
    ...body,
  });
}

const plain = { style: makeStyle(false), columns: 79 };

Deno.test("a successful call is one line: ✓, the tool, its key argument and how long it took", () => {
  const lines = formatToolCall(
    completed({ tool: "read", title: "src/app.ts", output: "1\n2\n3", duration_ms: 120 }),
    { file_path: "src/app.ts" },
    plain,
  );
  assertEquals(lines, ["✓ read src/app.ts 120ms"]);
  const fromInput = formatToolCall(completed({ tool: "glob", duration_ms: 2500 }), {
    pattern: "**/*.ts",
  }, plain);
  assertEquals(fromInput, ["✓ glob **/*.ts 2.5s"]);
  assertEquals(formatDuration(125_000), "2m05s");
});

Deno.test("a failed call shows ✗, the error code and message, and the hint", () => {
  const lines = formatToolCall(
    completed({
      tool: "edit",
      ok: false,
      title: "src/a.ts",
      duration_ms: 15,
      error: {
        code: "no_match",
        message: "old_string was not found",
        hint: "Read the file again.",
      },
    }),
    undefined,
    plain,
  );
  assertEquals(lines, [
    "✗ edit src/a.ts 15ms",
    "  no_match: old_string was not found",
    "  Read the file again.",
  ]);
  const coloured = formatToolCall(
    completed({ ok: false, error: { code: "x", message: "y" } }),
    undefined,
    {
      ...plain,
      style: makeStyle(true),
    },
  );
  assertStringIncludes(coloured[0], "\x1b[31m✗\x1b[39m");
});

Deno.test("a command that exits non-zero is marked ✗ with its exit code", () => {
  const lines = formatToolCall(
    completed({
      tool: "bash",
      title: "npm test",
      output: "fail",
      metadata: { exitCode: 1 },
      duration_ms: 1234,
    }),
    { command: "npm test" },
    plain,
  );
  assertEquals(lines, ["✗ bash npm test (exit 1) 1.2s", "  fail"]);
});

Deno.test("an edit shows its diff coloured under the line, plain without colour", () => {
  const diff = "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-old line\n+new line\n";
  const event = completed({ tool: "edit", title: "src/a.ts", metadata: { diff }, duration_ms: 8 });
  const coloured = formatToolCall(event, undefined, { ...plain, style: makeStyle(true) });
  assertStringIncludes(coloured.join("\n"), "\x1b[31m-old line\x1b[0m");
  assertStringIncludes(coloured.join("\n"), "\x1b[32m+new line\x1b[0m");
  assertStringIncludes(coloured.join("\n"), "\x1b[36m@@ -1 +1 @@\x1b[0m");
  const lines = formatToolCall(event, undefined, plain);
  assertEquals(lines.slice(1), [
    "  --- a/src/a.ts",
    "  +++ b/src/a.ts",
    "  @@ -1 +1 @@",
    "  -old line",
    "  +new line",
  ]);
  assertEquals(stripAnsi(coloured.join("\n")), lines.join("\n"));
});

Deno.test("long output is folded with a line count, and shown whole when expanded", () => {
  const output = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
  const event = completed({ tool: "bash", title: "seq 30", output, metadata: { exitCode: 0 } });
  const folded = formatToolCall(event, undefined, plain);
  assertEquals(folded.slice(1), [
    "  line 1",
    "  line 2",
    "  line 3",
    "  line 4",
    "  … 26 more lines, 30 in all (Ctrl-O expands)",
  ]);
  const expanded = formatToolCall(event, undefined, { ...plain, expanded: true });
  assertEquals(expanded.length, 31);
  assertEquals(expanded.at(-1), "  line 30");
});

Deno.test("a tool line never passes the width, and model text in it is neutralised", () => {
  const command = `echo ${"x".repeat(200)} \x1b[2J`;
  const lines = formatToolCall(
    completed({ tool: "bash", title: command, metadata: { exitCode: 0 } }),
    undefined,
    {
      ...plain,
      columns: 60,
    },
  );
  assert(lines[0].length <= 60, lines[0]);
  const short = formatToolCall(
    completed({ tool: "bash", title: "a \x1b[2J b", output: "\x1b]0;x\x07" }),
    undefined,
    plain,
  );
  assertEquals(short[0], "✓ bash a \\x1b[2J b 0ms");
  assert(!short.join("").includes("\x1b"));
});

Deno.test("a command's line shows the command; the model's description follows it dimmed, and a narrow line drops it", () => {
  const event = completed({
    tool: "bash",
    title: "false",
    duration_ms: 12,
    metadata: { exitCode: 1 },
  });
  const input = { command: "false", description: "run the tests" };
  assertEquals(
    formatToolCall(event, input, plain)[0],
    "✗ bash false (exit 1) 12ms  # run the tests",
  );
  const coloured = formatToolCall(event, input, { style: makeStyle(true), columns: 79 })[0];
  assertStringIncludes(coloured, "\x1b[2m# run the tests");
  assertEquals(
    formatToolCall(event, input, { style: makeStyle(false), columns: 26 })[0],
    "✗ bash false (exit 1) 12ms",
  );
  // With no title, the input names the call by its command, both lines of it.
  const running = formatToolCall(completed({ tool: "bash", title: "", duration_ms: 1 }), {
    command: "rm -rf x\ntrue",
    description: "tidy up",
  }, plain)[0];
  assertEquals(running, "✓ bash rm -rf x ⏎ true 1ms  # tidy up");
});
