/**
 * Subagents end to end, against the scripted mock: parallel task calls, the
 * depth limit, a child denied what its parent is denied, and `owns`.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";

type Request = {
  messages: { role: string; content: string }[];
  tools?: { function: { name: string } }[];
};
const toolNames = (request: Record<string, unknown>) =>
  ((request as Request).tools ?? []).map((tool) => tool.function.name);
const toolResults = (request: Record<string, unknown>) =>
  (request as Request).messages.filter((message) => message.role === "tool");

const task = (prompt: string, extra: Record<string, unknown> = {}) => ({
  name: "task",
  arguments: { description: "a piece of work", prompt, subagent_type: "general", ...extra },
});

Deno.test("two task calls in one step run in parallel as linked child sessions", async () => {
  const arrivals: number[] = [];
  await withMockSandbox([
    { toolCalls: [task("count the files"), task("read the readme")] },
    { text: "child answer", delayMs: 1500 },
    { text: "child answer", delayMs: 1500 },
    { text: "both done" },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "split the work"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(mock.requests.length, 4);
    // Each child starts from its own prompt, not the parent's transcript.
    const childPrompts = mock.requests.slice(1, 3).map((request) =>
      (request as Request).messages.at(-1)!.content
    ).sort();
    assertEquals(childPrompts, ["count the files", "read the readme"]);
    for (const request of mock.requests.slice(1, 3)) {
      assert(!(request as Request).messages.some((m) => m.content === "split the work"));
      assertEquals(toolNames(request).includes("task"), false, "no task below depth 1");
      assertEquals(toolNames(request).includes("todowrite"), false);
    }
    const results = toolResults(mock.requests[3]);
    assertEquals(results.length, 2);
    for (const message of results) assertStringIncludes(message.content, "child answer");
    // The second child asked the model before the first one's 1.5 s answer came back.
    const gap = arrivals[2] - arrivals[1];
    assert(gap < 1500, `children ran in parallel (their requests were ${gap} ms apart)`);

    const parentId = String(parseJsonLines(result.stdout)[0].session_id);
    const list = await runSkiff(["sessions", "list", "--json"], sandbox);
    const sessions = parseJsonLines(list.stdout);
    assertEquals(sessions.length, 1, "children are not listed as top-level sessions");
    const exported = JSON.parse((await runSkiff(["sessions", "export", parentId], sandbox)).stdout);
    assertEquals(exported.session.id, parentId);
  }, { onRequest: () => arrivals.push(Date.now()) });
});

Deno.test("a child is denied what its parent is denied", async () => {
  await withMockSandbox([
    { toolCalls: [task("make a file")] },
    { toolCalls: [{ name: "bash", arguments: { command: "touch child-made" } }] },
    { text: "could not" },
    { text: "the child could not" },
  ], async (sandbox, mock) => {
    const result = await runSkiff(
      ["run", "--json", "--yes", "--deny", "bash(touch *)", "delegate"],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr);
    const childResult = toolResults(mock.requests[2])[0];
    assertStringIncludes(childResult.content, "denied");
    const made = await Deno.stat(`${sandbox.workspace}/child-made`).then(() => true, () => false);
    assertEquals(made, false);
  });
});

Deno.test("owns: a child writes only the paths it owns", async () => {
  await withMockSandbox([
    { toolCalls: [task("write files", { owns: ["mine"] })] },
    {
      toolCalls: [
        { name: "write", arguments: { file_path: "mine/ok.txt", content: "yes\n" } },
        { name: "write", arguments: { file_path: "theirs.txt", content: "no\n" } },
      ],
    },
    { text: "wrote what I could" },
    { text: "done" },
  ], async (sandbox, mock) => {
    await Deno.mkdir(`${sandbox.workspace}/mine`);
    const result = await runSkiff(["run", "--json", "delegate"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/mine/ok.txt`), "yes\n");
    const theirs = await Deno.stat(`${sandbox.workspace}/theirs.txt`).then(() => true, () => false);
    assertEquals(theirs, false);
    const [okResult, deniedResult] = toolResults(mock.requests[2]);
    assert(!okResult.content.includes("denied"), okResult.content);
    assertStringIncludes(deniedResult.content, "may only write");
    const parentResult = toolResults(mock.requests[3])[0].content;
    assertStringIncludes(parentResult, "mine/ok.txt");
  });
});

Deno.test("undo of a prompt also puts back what its subagent changed", async () => {
  await withMockSandbox([
    { toolCalls: [task("change the files")] },
    { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }] },
    {
      toolCalls: [
        { name: "write", arguments: { file_path: "a.txt", content: "by the child\n" } },
        { name: "write", arguments: { file_path: "made.txt", content: "new\n" } },
      ],
    },
    { text: "changed both" },
    { text: "the child changed both" },
  ], async (sandbox) => {
    const file = `${sandbox.workspace}/a.txt`;
    await Deno.writeTextFile(file, "original\n");
    const result = await runSkiff(["run", "--yes", "delegate"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await Deno.readTextFile(file), "by the child\n");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertStringIncludes(undo.stdout, "2 file(s) put back");
    assertEquals(await Deno.readTextFile(file), "original\n");
    const made = await Deno.stat(`${sandbox.workspace}/made.txt`).then(() => true, () => false);
    assertEquals(made, false);
  });
});

Deno.test("a subagent stopped by its turn limit: the parent is told its answer may be incomplete", async () => {
  await withMockSandbox([
    { toolCalls: [task("look around")] },
    { text: "partial findings", toolCalls: [{ name: "todoread", arguments: {} }] },
    { text: "done" },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(
      `${sandbox.workspace}/skiff.json`,
      JSON.stringify({ agent: { general: { max_turns: 1 } } }),
    );
    const result = await runSkiff(["run", "delegate"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const childResult = toolResults(mock.requests[2])[0];
    assertStringIncludes(childResult.content, "partial findings");
    assertStringIncludes(childResult.content, "may be incomplete");
  });
});
