/**
 * End-to-end: `skiff tool` (tools without a model, JSON Lines in and out),
 * `skiff undo` after it and after a model run, and `skiff sessions`.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import {
  MAIN,
  makeSandbox,
  parseJsonLines,
  runInWorkspace,
  runSkiff,
  type Sandbox,
  toolSession,
  withMockSandbox,
} from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";

async function withSandbox(work: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await makeSandbox();
  try {
    await work(sandbox);
  } finally {
    await sandbox.cleanup();
  }
}

const lines = (...calls: unknown[]) => calls.map((call) => JSON.stringify(call)).join("\n") + "\n";

Deno.test("skiff tool runs one call from its arguments", async () => {
  await withSandbox(async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\nbeta\n");
    const result = await runSkiff(["tool", "read", '{"file_path":"a.txt"}'], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const [line] = parseJsonLines(result.stdout);
    assertEquals(line.tool, "read");
    assertEquals(line.ok, true);
    assertStringIncludes(String(line.output), "beta");
  });
});

Deno.test("skiff tool: JSON Lines in order in one session; read-before-edit holds", async () => {
  await withSandbox(async (sandbox) => {
    const file = `${sandbox.workspace}/a.txt`;
    await Deno.writeTextFile(file, "one\ntwo\n");
    const edit = { file_path: "a.txt", old_string: "two", new_string: "TWO" };
    const result = await runSkiff(["tool"], sandbox, {
      input: lines(
        { tool: "edit", input: edit },
        { tool: "read", input: { file_path: "a.txt" } },
        { tool: "edit", input: edit },
        "not an object",
      ) + "{broken json\n",
    });
    assertEquals(result.code, 1, "one failure makes the exit 1");
    const results = parseJsonLines(result.stdout);
    assertEquals(results.length, 5);
    assertEquals(results[0].ok, false);
    assertEquals((results[0].error as { code: string }).code, "file_not_read");
    assertEquals(results[1].ok, true);
    assertEquals(results[2].ok, true);
    assert(String((results[2].metadata as { diff: string }).diff).includes("+TWO"));
    assertEquals((results[3].error as { code: string }).code, "bad_input");
    assertEquals((results[4].error as { code: string }).code, "bad_input");
    assertEquals(await Deno.readTextFile(file), "one\nTWO\n");
  });
});

Deno.test("skiff tool: bad input echoes the schema; unknown tools are named", async () => {
  await withSandbox(async (sandbox) => {
    const result = await runSkiff(["tool"], sandbox, {
      input: lines({ tool: "read", input: { path: "x" } }, { tool: "frobnicate", input: {} }),
    });
    assertEquals(result.code, 1);
    const [bad, unknown] = parseJsonLines(result.stdout);
    assertEquals((bad.error as { code: string }).code, "bad_input");
    assertStringIncludes(JSON.stringify(bad.error), "file_path");
    assertEquals((unknown.error as { code: string }).code, "not_found");
  });
});

Deno.test("skiff undo puts back what the last batch changed and removes what it created", async () => {
  await withSandbox(async (sandbox) => {
    const file = `${sandbox.workspace}/a.txt`;
    await Deno.writeTextFile(file, "original\n");
    const result = await runSkiff(["tool"], sandbox, {
      input: lines(
        { tool: "read", input: { file_path: "a.txt" } },
        {
          tool: "edit",
          input: { file_path: "a.txt", old_string: "original", new_string: "changed" },
        },
        { tool: "write", input: { file_path: "new/b.txt", content: "brand new\n" } },
      ),
    });
    assertEquals(result.code, 0, result.stdout + result.stderr);
    assertEquals(await Deno.readTextFile(file), "changed\n");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    assertEquals(await Deno.readTextFile(file), "original\n");
    const created = await Deno.stat(`${sandbox.workspace}/new/b.txt`).then(() => true, () => false);
    assertEquals(created, false);
    assertStringIncludes(undo.stdout, "2 file(s) put back");
  });
});

Deno.test("skiff undo refuses a file changed on disk since, and names it", async () => {
  await withSandbox(async (sandbox) => {
    const file = `${sandbox.workspace}/a.txt`;
    await Deno.writeTextFile(file, "original\n");
    await runSkiff(["tool"], sandbox, {
      input: lines(
        { tool: "read", input: { file_path: "a.txt" } },
        { tool: "write", input: { file_path: "a.txt", content: "by skiff\n" } },
      ),
    });
    await Deno.writeTextFile(file, "by a person\n");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 1);
    assertMatch(undo.stderr, /refused .*a\.txt/);
    assertEquals(await Deno.readTextFile(file), "by a person\n", "the person's change stays");
  });
});

Deno.test("undo after a model run; sessions list, show, export and rm", async () => {
  const mock = startMockServer([
    { toolCalls: [{ name: "write", arguments: { file_path: "made.txt", content: "x\n" } }] },
    { text: "Wrote made.txt." },
  ]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    const run = await runSkiff(["run", "--json", "make a file"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    const id = String(parseJsonLines(run.stdout)[0].session_id);
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/made.txt`), "x\n");

    const list = await runSkiff(["sessions", "list"], sandbox);
    assertStringIncludes(list.stdout, id);
    assertStringIncludes(list.stdout, "make a file", "the first prompt is the title");
    const show = await runSkiff(["sessions", "show", id.slice(0, 12)], sandbox);
    assertEquals(show.code, 0, show.stderr);
    assertStringIncludes(show.stdout, "make a file");
    assertStringIncludes(show.stdout, "Wrote made.txt.");
    const exported = await runSkiff(["sessions", "export", id, "--format", "json"], sandbox);
    const data = JSON.parse(exported.stdout);
    assertEquals(data.session.id, id);
    assert(data.events.some((event: { type: string }) => event.type === "tool.completed"));

    const undo = await runSkiff(["undo", "--session", id], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    const exists = await Deno.stat(`${sandbox.workspace}/made.txt`).then(() => true, () => false);
    assertEquals(exists, false);

    const removed = await runSkiff(["sessions", "rm", id], sandbox);
    assertEquals(removed.code, 0);
    const missing = await runSkiff(["sessions", "show", id], sandbox);
    assertEquals(missing.code, 2);
    assertStringIncludes(missing.stderr, "sessions list");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("deno task skiff run from another folder works on that folder", async () => {
  await withSandbox(async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/only-here.txt`, "x\n");
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const output = await runInWorkspace(
      Deno.execPath(),
      ["task", "--quiet", "--config", config, "skiff", "tool", "list", "{}"],
      sandbox,
    );
    assertEquals(output.code, 0, output.stderr);
    assertStringIncludes(output.stdout, "only-here.txt");
  });
});

Deno.test("skiff tool | head: a reader that goes away ends skiff quietly", async () => {
  await withSandbox(async (sandbox) => {
    const line = "x".repeat(200) + "\n";
    await Deno.writeTextFile(`${sandbox.workspace}/big.txt`, line.repeat(2000));
    const calls = lines(
      ...Array.from({ length: 8 }, () => ({ tool: "read", input: { file_path: "big.txt" } })),
    );
    await Deno.writeTextFile(`${sandbox.root}/calls.jsonl`, calls);
    const skiff = [Deno.execPath(), "run", "-A", "--unstable-worker-options", "--no-prompt", MAIN]
      .map((part) => `'${part}'`).join(" ");
    const output = await new Deno.Command("bash", {
      args: [
        "-c",
        `${skiff} tool < '${sandbox.root}/calls.jsonl' | head -c 10 > /dev/null; echo "exit=\${PIPESTATUS[0]}"`,
      ],
      cwd: sandbox.workspace,
      env: sandbox.env,
      clearEnv: true,
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert(!stderr.includes("internal error") && !stderr.includes("Uncaught"), stderr);
    assertStringIncludes(new TextDecoder().decode(output.stdout), "exit=130");
  });
});

Deno.test("undo prompt after prompt in one session goes back to the original", async () => {
  const editTurn = (from: string, to: string): MockTurn[] => [
    { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }] },
    {
      toolCalls: [{
        name: "edit",
        arguments: { file_path: "a.txt", old_string: from, new_string: to },
      }],
    },
    { text: `now ${to}` },
  ];
  await withMockSandbox([...editTurn("v0", "v1"), ...editTurn("v1", "v2")], async (sandbox) => {
    const file = `${sandbox.workspace}/a.txt`;
    await Deno.writeTextFile(file, "v0\n");
    assertEquals((await runSkiff(["run", "first"], sandbox)).code, 0);
    assertEquals((await runSkiff(["run", "--continue", "second"], sandbox)).code, 0);
    assertEquals(await Deno.readTextFile(file), "v2\n");
    const firstUndo = await runSkiff(["undo"], sandbox);
    assertEquals(firstUndo.code, 0, firstUndo.stderr);
    assertEquals(await Deno.readTextFile(file), "v1\n");
    const secondUndo = await runSkiff(["undo"], sandbox);
    assertEquals(secondUndo.code, 0, secondUndo.stderr);
    assertEquals(await Deno.readTextFile(file), "v0\n");
    assertStringIncludes(secondUndo.stdout, "Undid prompt 1");
  });
});

Deno.test("undo brings back a deleted executable with its mode", async () => {
  await withSandbox(async (sandbox) => {
    const file = `${sandbox.workspace}/run.sh`;
    await Deno.writeTextFile(file, "#!/bin/sh\necho hi\n");
    await Deno.chmod(file, 0o750);
    const patch = "*** Begin Patch\n*** Delete File: run.sh\n*** End Patch";
    const result = await runSkiff(["tool"], sandbox, {
      input: lines(
        { tool: "read", input: { file_path: "run.sh" } },
        { tool: "apply_patch", input: { patch } },
      ),
    });
    assertEquals(result.code, 0, result.stdout);
    assertEquals(await Deno.stat(file).then(() => true, () => false), false);
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o750);
  });
});

Deno.test("a later skiff tool read does not hide the last run from skiff undo", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "write", arguments: { file_path: "made.txt", content: "x\n" } }] },
    { text: "Wrote made.txt." },
  ], async (sandbox) => {
    assertEquals((await runSkiff(["run", "make a file"], sandbox)).code, 0);
    const read = await runSkiff(["tool", "read", '{"file_path":"made.txt"}'], sandbox);
    assertEquals(read.code, 0, read.stderr);
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertMatch(undo.stdout, /removed +\S*made\.txt/);
    const exists = await Deno.stat(`${sandbox.workspace}/made.txt`).then(() => true, () => false);
    assertEquals(exists, false, "the run's file is gone: undo reached past the tool session");
  });
});

Deno.test("a skiff tool session is finished and titled by its calls", async () => {
  await withSandbox(async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n");
    const result = await runSkiff(["tool"], sandbox, {
      input: lines(
        { tool: "read", input: { file_path: "a.txt" } },
        { tool: "glob", input: { pattern: "*.txt" } },
        { tool: "read", input: { file_path: "a.txt" } },
      ),
    });
    assertEquals(result.code, 0, result.stderr);
    const list = await runSkiff(["sessions", "list", "--json"], sandbox);
    const [session] = parseJsonLines(list.stdout);
    assertEquals(session.status, "completed");
    assertEquals(session.agent, "tool");
    assertEquals(session.title, "skiff tool: read, glob");
  });
});

Deno.test("skiff tool: each call records what it left each file it changed, and no other file", async () => {
  await withSandbox(async (sandbox) => {
    const tool = toolSession(sandbox, ["--allow", "edit(*)"]);
    const call = async (line: unknown) => {
      const answer = await tool.call(line);
      assertEquals(answer.ok, true, JSON.stringify(answer));
    };
    try {
      await call({ tool: "write", input: { file_path: "a.txt", content: "from skiff\n" } });
      // Someone else changes a.txt between two calls; the next call changes b.txt only.
      await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "someone else\n");
      await call({ tool: "write", input: { file_path: "b.txt", content: "b\n" } });
    } finally {
      // Killed: no close, so what is stored is what the calls recorded.
      await tool.stop();
    }
    const undo = await runSkiff(["undo"], sandbox);
    // a.txt: skiff's own after-state was recorded with its call, so the later change is seen.
    assertStringIncludes(
      undo.stdout + undo.stderr,
      "a.txt: changed on disk since skiff changed it",
    );
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "someone else\n");
    let bLeft = true;
    try {
      await Deno.stat(`${sandbox.workspace}/b.txt`);
    } catch {
      bLeft = false;
    }
    assertEquals(bLeft, false, "b.txt, made by the second call, was not removed");
  });
});
