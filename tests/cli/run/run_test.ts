/**
 * End-to-end: `skiff run` as a real process against the scripted mock
 * endpoint — tool-calling sessions, JSON events, resume, exit codes, retries,
 * a cut stream, and a process killed mid-session that resumes intact.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../support/assert.ts";
import {
  MAIN,
  makeSandbox,
  parseJsonLines,
  runSkiff,
  spawnSkiff,
  withMockSandbox,
} from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";

function messagesOf(request: Record<string, unknown>): { role: string; content?: string }[] {
  return request.messages as { role: string; content?: string }[];
}

Deno.test("a two-step session reads a file, then answers on stdout", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] },
    { text: "The notes say hello." },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "hello\nworld\n");
    await new Deno.Command("git", { args: ["init", "-q", "-b", "trunk"], cwd: sandbox.workspace })
      .output();
    const result = await runSkiff(["run", "what do the notes say?"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout.trim(), "The notes say hello.");
    assertMatch(result.stderr, /✓ read .*notes\.txt/);
    assertEquals(mock.requests.length, 2);
    const second = messagesOf(mock.requests[1]);
    assertEquals(second[0].role, "system");
    assertStringIncludes(second[0].content!, sandbox.workspace);
    // git status ran (contained) for the prompt's summary.
    assertStringIncludes(second[0].content!, "Git: branch trunk, clean, 1 untracked");
    const toolMessage = second.find((message) => message.role === "tool");
    assertStringIncludes(toolMessage!.content!, "hello");
  });
});

Deno.test("--json prints one event per line with session id and timestamp", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }] },
    { text: "done" },
  ], async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "x\n");
    const result = await runSkiff(["run", "--json", "look"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const events = parseJsonLines(result.stdout);
    const types = events.map((event) => event.type);
    assertEquals(types[0], "session.started");
    assertEquals(types.at(-1), "session.completed");
    for (
      const expected of [
        "turn.started",
        "tool.started",
        "tool.completed",
        "turn.completed",
        "message.delta",
        "message.completed",
      ]
    ) {
      assert(types.includes(expected), `missing ${expected} in ${types.join(",")}`);
    }
    const sessionId = events[0].session_id;
    assertMatch(String(sessionId), /^ses_/);
    for (const event of events) {
      assertEquals(event.session_id, sessionId);
      assert(!Number.isNaN(Date.parse(String(event.timestamp))), "timestamp parses");
    }
    const completed = events.at(-1)!;
    assertEquals(completed.text, "done");
    assertEquals(completed.turns, 2);
    assert((completed.usage as { total_tokens: number }).total_tokens > 0, "usage summed");
  });
});

Deno.test("the prompt can come from piped stdin, and --output-last-message writes the answer", async () => {
  await withMockSandbox([{ text: "piped answer" }], async (sandbox, mock) => {
    const out = `${sandbox.root}/last.txt`;
    const result = await runSkiff(["run", "-o", out], sandbox, { input: "from stdin\n" });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(messagesOf(mock.requests[0]).at(-1)!.content, "from stdin");
    assertEquals(await Deno.readTextFile(out), "piped answer");
  });
});

Deno.test("exit 2 before any model request: --output-last-message in a folder that does not exist", async () => {
  await withMockSandbox([{ text: "never asked" }], async (sandbox, mock) => {
    const out = `${sandbox.root}/missing/last.txt`;
    const result = await runSkiff(["run", "-o", out, "hi"], sandbox);
    assertEquals(result.code, 2, result.stderr);
    assertStringIncludes(result.stderr, `${sandbox.root}/missing does not exist`);
    assert(!result.stderr.includes("internal error"), result.stderr);
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test("--continue resumes the latest session with its history", async () => {
  await withMockSandbox(
    [{ text: "first answer" }, { text: "second answer" }],
    async (sandbox, mock) => {
      const first = await runSkiff(["run", "--json", "first question"], sandbox);
      assertEquals(first.code, 0, first.stderr);
      const second = await runSkiff(["run", "--json", "--continue", "second question"], sandbox);
      assertEquals(second.code, 0, second.stderr);
      const firstId = parseJsonLines(first.stdout)[0].session_id;
      const started = parseJsonLines(second.stdout)[0];
      assertEquals(started.session_id, firstId);
      assertEquals(started.resumed, true);
      const contents = messagesOf(mock.requests[1]).map((message) => message.content);
      assertEquals(contents.slice(1), ["first question", "first answer", "second question"]);
    },
  );
});

Deno.test("exit 2: a config file with an unknown key names the file and the key", async () => {
  await withMockSandbox([], async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/skiff.json`, '{ "provder": {} }');
    const result = await runSkiff(["run", "hi"], sandbox);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "skiff.json");
    assertStringIncludes(result.stderr, "provder");
  });
});

Deno.test("exit 2: an empty prompt and an unknown flag are usage errors", async () => {
  await withMockSandbox([], async (sandbox) => {
    const empty = await runSkiff(["run"], sandbox, { input: "" });
    assertEquals(empty.code, 2);
    assertStringIncludes(empty.stderr, "prompt");
    assertStringIncludes(empty.stderr, "pass the prompt as an argument");
    const unknown = await runSkiff(["run", "--frobnicate", "x"], sandbox);
    assertEquals(unknown.code, 2);
    const badRule = await runSkiff(["run", "--allow", "bash(npm test", "x"], sandbox);
    assertEquals(badRule.code, 2);
    assertStringIncludes(badRule.stderr, "bash(npm test *)");
  });
});

Deno.test("exit 4: an endpoint refusing connections fails fast, naming it", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const sandbox = await makeSandbox({
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    SKIFF_MODEL: "m",
  });
  try {
    const started = Date.now();
    const result = await runSkiff(["run", "hi"], sandbox);
    assertEquals(result.code, 4, result.stderr);
    assertStringIncludes(result.stderr, `127.0.0.1:${port}`);
    assert(Date.now() - started < 25_000, "failed within the connect budget");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("exit 4: a server failing every retry", async () => {
  const failures: MockTurn[] = Array.from({ length: 3 }, () => ({ status: 503 }));
  await withMockSandbox(failures, async (sandbox) => {
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      '{ "provider": { "maxRetries": 2 } }',
    );
    const result = await runSkiff(["run", "hi"], sandbox);
    assertEquals(result.code, 4, result.stderr);
    assertStringIncludes(result.stderr, "503");
  });
});

Deno.test("exit 5: --max-turns stops a model that keeps calling tools", async () => {
  const loop: MockTurn[] = Array.from({ length: 3 }, () => ({
    toolCalls: [{ name: "todoread", arguments: {} }],
  }));
  await withMockSandbox(loop, async (sandbox, mock) => {
    const result = await runSkiff(["run", "--max-turns", "2", "spin"], sandbox);
    assertEquals(result.code, 5, result.stderr);
    assertStringIncludes(result.stderr, "2 turns");
    assertEquals(mock.requests.length, 2);
  });
});

Deno.test("exit 1: the model runs out of output tokens before answering", async () => {
  await withMockSandbox([{ text: "", finishReason: "length" }], async (sandbox) => {
    const result = await runSkiff(["run", "--json", "write a novel"], sandbox);
    assertEquals(result.code, 1, result.stderr);
    const events = parseJsonLines(result.stdout);
    const error = events.find((event) => event.type === "error");
    assertStringIncludes(String(error?.message), "output tokens");
    assertEquals(events.at(-1)!.exit_code, 1);
  });
});

Deno.test("exit 3: a headless run denies a command that needs approval and reports it", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "bash", arguments: { command: "touch made-by-bash" } }] },
    { text: "I could not run it." },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "make a file"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const events = parseJsonLines(result.stdout);
    const completed = events.at(-1)!;
    const denials = completed.denials as { tool: string; patterns: string[] }[];
    assertEquals(denials.length, 1);
    assertEquals(denials[0].tool, "bash");
    assertEquals(denials[0].patterns, ["touch made-by-bash"]);
    const toolMessage = (mock.requests[1].messages as { role: string; content: string }[])
      .find((message) => message.role === "tool")!;
    assertStringIncludes(toolMessage.content, "denied");
    assertStringIncludes(toolMessage.content, "--allow");
    const exists = await Deno.stat(`${sandbox.workspace}/made-by-bash`).then(
      () => true,
      () => false,
    );
    assertEquals(exists, false, "the denied command did not run");
  });
});

Deno.test("--allow lets the same command run in a headless run", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "bash", arguments: { command: "echo hi > made-by-bash" } }] },
    { text: "done" },
  ], async (sandbox) => {
    const result = await runSkiff(["run", "--allow", "bash(echo *)", "make a file"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/made-by-bash`), "hi\n");
  });
});

Deno.test("a 429 with Retry-After, then success", async () => {
  await withMockSandbox(
    [{ status: 429, retryAfter: 1 }, { text: "after the wait" }],
    async (sandbox) => {
      const started = Date.now();
      const result = await runSkiff(["run", "--json", "hi"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      const events = parseJsonLines(result.stdout);
      const retry = events.find((event) => event.type === "provider.retry");
      assert(retry, "a provider.retry event");
      assert(Date.now() - started >= 1000, "waited for Retry-After");
      assertEquals(events.at(-1)!.text, "after the wait");
    },
  );
});

Deno.test("a stream cut midway is retried without duplicating text", async () => {
  const text = "The quick brown fox jumps over the lazy dog.";
  await withMockSandbox([{ cut: true, text }, { text }], async (sandbox) => {
    const result = await runSkiff(["run", "tell me"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout.trim(), text);
  });
});

Deno.test("exit 130 on SIGINT, and the session is kept", async () => {
  await withMockSandbox([{ hang: true }], async (sandbox, mock) => {
    const child = spawnSkiff(["run", "--json", "wait forever"], sandbox);
    await waitFor(() => mock.requests.length === 1);
    child.kill("SIGINT");
    const output = await child.output();
    assertEquals(output.code, 130);
    const events = parseJsonLines(new TextDecoder().decode(output.stdout));
    assertEquals(events.at(-1)!.type, "session.completed");
  });
});

Deno.test("a killed process leaves a session that resumes intact", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "read", arguments: { file_path: "f.txt" } }] },
    { hang: true },
    { text: "resumed fine" },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(`${sandbox.workspace}/f.txt`, "content\n");
    const child = spawnSkiff(["run", "read it"], sandbox);
    await waitFor(() => mock.requests.length === 2);
    child.kill("SIGKILL");
    await child.output();
    const result = await runSkiff(["run", "--json", "--continue", "go on"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const messages = messagesOf(mock.requests[2]) as {
      role: string;
      content?: string;
      tool_calls?: unknown[];
    }[];
    const roles = messages.map((message) => message.role);
    assertEquals(roles, ["system", "user", "assistant", "tool", "user"]);
    assertEquals(messages[2].tool_calls?.length, 1, "the call is sent again with its result");
    assertStringIncludes(messages[3].content!, "content");
    assertEquals(messages[1].content, "read it");
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the condition");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("exit 130, quietly, when the reader of --json output goes away (| head)", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "todoread", arguments: {} }], delayMs: 1000 },
    { text: "done", delayMs: 3000 },
  ], async (sandbox) => {
    const skiff = [Deno.execPath(), "run", "-A", "--unstable-worker-options", "--no-prompt", MAIN]
      .map((part) => `'${part}'`).join(" ");
    const output = await new Deno.Command("bash", {
      args: [
        "-c",
        `${skiff} run --json hi | head -c 10 > /dev/null; echo "exit=\${PIPESTATUS[0]}"`,
      ],
      cwd: sandbox.workspace,
      env: sandbox.env,
      clearEnv: true,
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert(!stderr.includes("Uncaught"), stderr);
    assertStringIncludes(stdout, "exit=130");
  });
});

Deno.test("no turn limit by default: 60 tool-call turns, then the answer, exits 0", async () => {
  // Different calls each turn, so the doom-loop guard has nothing to say.
  const work: MockTurn[] = Array.from({ length: 60 }, (_, i) => ({
    toolCalls: [{ name: "glob", arguments: { pattern: `f${i}*` } }],
  }));
  await withMockSandbox([...work, { text: "all done" }], async (sandbox, mock) => {
    const result = await runSkiff(["run", "a long task"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout.trim(), "all done");
    assertEquals(mock.requests.length, 61);
  });
});

Deno.test("exit 5: config maxTime stops a run whose model request hangs", async () => {
  await withMockSandbox([{ hang: true }], async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/skiff.json`, JSON.stringify({ maxTime: 1 }));
    const started = Date.now();
    const result = await runSkiff(["run", "hi"], sandbox);
    assertEquals(result.code, 5, result.stderr);
    assertStringIncludes(result.stderr, "time limit");
    assert(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  });
});

Deno.test("exit 5: a model sending the same refused call again is stopped on the third turn", async () => {
  const stuck: MockTurn[] = Array.from({ length: 10 }, () => ({
    toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }],
  }));
  await withMockSandbox([...stuck, { text: "never reached" }], async (sandbox, mock) => {
    const result = await runSkiff(["run", "clean up"], sandbox);
    assertEquals(result.code, 5, result.stderr);
    assertStringIncludes(result.stderr, "refused or failed");
    assertEquals(mock.requests.length, 3);
  });
});
