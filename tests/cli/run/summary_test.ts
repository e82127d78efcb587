/**
 * `skiff run --summary <file.md>`: the Markdown a CI job shows, end to end
 * through the mock endpoint; and the CI stdin rule (read only when piped).
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { runSkiff, withMockSandbox } from "../../support/cli.ts";
import { RunSummary } from "../../../src/cli/run/summary.ts";
import { promptStdin } from "../../../src/cli/run/run.ts";
import { makeEvent } from "../../../src/contracts/events.ts";

Deno.test("--summary: the answer, files changed, last command, tokens and cost", async () => {
  await withMockSandbox([
    {
      toolCalls: [{ name: "write", arguments: { file_path: "notes.md", content: "a\nb\n" } }],
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    },
    {
      toolCalls: [{ name: "bash", arguments: { command: "grep -c b notes.md" } }],
      usage: { prompt_tokens: 120, completion_tokens: 10 },
    },
    {
      text: "Wrote **notes.md**; the check passed.",
      usage: { prompt_tokens: 140, completion_tokens: 20 },
    },
  ], async (sandbox) => {
    const file = `${sandbox.root}/summary.md`;
    const result = await runSkiff(
      ["run", "--summary", file, "--allow", "bash(grep *)", "write notes"],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr);
    const summary = await Deno.readTextFile(file);
    assertStringIncludes(summary, "## skiff run: done");
    assertStringIncludes(summary, "Wrote **notes.md**; the check passed.");
    assertStringIncludes(summary, "### Files changed (1)");
    assertStringIncludes(summary, "- `notes.md` +2 −0");
    assertStringIncludes(summary, "`grep -c b notes.md` → exit 0");
    assertStringIncludes(summary, "| 360 | – | 40 | 400 |");
    assert(!summary.includes("### Denied"), "no denials, no section");
  });
});

Deno.test("--summary: a denied run names the denial, how to allow it, and the failure layer", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] },
    { text: "I could not clean." },
  ], async (sandbox) => {
    const file = `${sandbox.root}/summary.md`;
    const result = await runSkiff(["run", "--summary", file, "clean"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const summary = await Deno.readTextFile(file);
    assertStringIncludes(summary, "did not succeed (exit 3)");
    assertStringIncludes(summary, "Failure layer: **workflow** (permission_denied)");
    assertStringIncludes(summary, "### Denied (1)");
    assertStringIncludes(summary, "`rm -rf build`");
    assertStringIncludes(summary, "To allow it: `--allow");
  });
});

Deno.test("--summary in a folder that does not exist is refused before the model is asked", async () => {
  await withMockSandbox([{ text: "never" }], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--summary", "/nowhere/at/all/s.md", "hi"], sandbox);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "--summary /nowhere/at/all/s.md");
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test("summary: text from the model cannot break out of inline code or carry control characters", () => {
  const summary = new RunSummary();
  const at = () => new Date(0);
  summary.observe(makeEvent("session.started", "s1", {
    workspace: "/w",
    model: "m",
    agent: "build",
    resumed: false,
  }, at));
  summary.observe(makeEvent("tool.started", "s1", {
    turn: 1,
    call_id: "c",
    tool: "bash",
    input: { command: "echo `x`\n# heading\x1b[2J" },
  }, at));
  summary.observe(makeEvent("tool.completed", "s1", {
    turn: 1,
    call_id: "c",
    tool: "bash",
    ok: true,
    title: "",
    output: "",
    metadata: { exitCode: 1 },
    duration_ms: 1,
  }, at));
  const text = summary.markdown(1);
  assertStringIncludes(text, "`echo 'x' # heading\\x1b[2J` → exit 1");
  assert(!text.includes("\x1b"));
});

Deno.test("CI: stdin that is neither a pipe, a file nor /dev/null is not waited on", async () => {
  const kind = { isFile: false, isFifo: false, isCharDevice: false, rdev: 0 };
  const socket = () => kind;
  const empty = promptStdin("true", socket);
  const reader = empty.readable.getReader();
  assertEquals((await reader.read()).done, true);
  assertEquals(promptStdin("true", () => ({ ...kind, isFifo: true })), Deno.stdin);
  assertEquals(promptStdin("", socket), Deno.stdin);
  assertEquals(promptStdin("false", socket), Deno.stdin);
  // A character device: /dev/null itself is read (nothing, at once); another one is not.
  const devices = (stdin: number) => (path: string) => ({
    ...kind,
    isCharDevice: true,
    rdev: path === "/dev/null" ? 259 : stdin,
  });
  assertEquals(promptStdin("true", devices(259)), Deno.stdin);
  assert(promptStdin("true", devices(261)) !== Deno.stdin, "/dev/zero would be read");
});

Deno.test("CI=true: no colour and no escape codes in the output of a run", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "write", arguments: { file_path: "a.txt", content: "x\n" } }] },
    { text: "done" },
  ], async (sandbox) => {
    const result = await runSkiff(["run", "write it"], sandbox, { env: { CI: "true" } });
    assertEquals(result.code, 0, result.stderr);
    assert(!result.stderr.includes("\x1b"), "no escape codes on stderr");
    assert(!result.stdout.includes("\x1b"), "no escape codes on stdout");
  });
});
