/**
 * A prompt given to skiff itself, as `claude "…"` and `codex "…"` take one:
 * headless (stdin and stdout not a terminal) `skiff "explain this repo"` and
 * `skiff -p "…"` run it as `skiff run` does; at a real terminal (tmux) it
 * opens the chat with that first message; a first word one slip from a
 * command's name is refused as a mistyped command, naming the command meant,
 * and nothing reaches the model.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff, type Sandbox } from "../support/cli.ts";
import { type MockServer, type MockTurn, startMockServer } from "../support/mock_server.ts";
import { hasTmux, inTerminal, press, shows, warnWithoutTmux } from "../support/chat_tmux.ts";

warnWithoutTmux("the bare prompt at a real terminal");

async function withMock(
  script: MockTurn[],
  body: (sandbox: Sandbox, mock: MockServer) => Promise<void>,
): Promise<void> {
  const mock = startMockServer(script);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await body(sandbox, mock);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

/** The last user message of the `index`th request the mock received. */
function asked(mock: MockServer, index = 0): string {
  const messages = mock.requests[index]?.messages as { role: string; content: string }[];
  return messages.findLast((message) => message.role === "user")?.content ?? "";
}

Deno.test('bare prompt: headless `skiff "…"` runs it as skiff run does', async () => {
  await withMock([{ text: "It is a walrus repo." }], async (sandbox, mock) => {
    const result = await runSkiff(["explain this repo"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "It is a walrus repo.");
    assertEquals(asked(mock), "explain this repo");
  });
});

Deno.test("bare prompt: unquoted words are one prompt, as skiff run reads them", async () => {
  await withMock([{ text: "Explained." }], async (sandbox, mock) => {
    const result = await runSkiff(["explain", "this", "repo"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(asked(mock), "explain this repo");
  });
});

Deno.test("bare prompt: -p and --print are the headless form, with skiff run's flags", async () => {
  await withMock([{ text: "Printed." }, { text: "As JSON." }], async (sandbox, mock) => {
    const plain = await runSkiff(["-p", "explain this repo"], sandbox);
    assertEquals(plain.code, 0, plain.stderr);
    assertStringIncludes(plain.stdout, "Printed.");
    const json = await runSkiff(["--print", "--json", "--max-turns", "3", "once more"], sandbox);
    assertEquals(json.code, 0, json.stderr);
    const types = json.stdout.trim().split("\n").map((line) => JSON.parse(line).type);
    assert(types.includes("session.completed"), json.stdout);
    assertEquals(asked(mock, 1), "once more");
  });
});

Deno.test("bare prompt: -p with the prompt piped reads it from stdin", async () => {
  await withMock([{ text: "From the pipe." }], async (sandbox, mock) => {
    const result = await runSkiff(["-p"], sandbox, { input: "what is piped\n" });
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "From the pipe.");
    assertStringIncludes(asked(mock), "what is piped");
  });
});

Deno.test("bare prompt: `skiff rn x` is a mistyped command: exit 2, the command meant, no request", async () => {
  await withMock([{ text: "never sent" }], async (sandbox, mock) => {
    for (
      const [args, meant] of [
        [["rn", "x"], "run"],
        [["doctr"], "doctor"],
        [["sesions", "list"], "sessions"],
      ] as const
    ) {
      const result = await runSkiff([...args], sandbox);
      assertEquals(result.code, 2, result.stderr);
      assertStringIncludes(
        result.stderr,
        `unknown command '${args[0]}' (did you mean ${meant}?)`,
      );
      assertStringIncludes(result.stderr, `skiff "${args.join(" ")}"`);
    }
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test("bare prompt: a quoted prompt that starts like a command is still a prompt", async () => {
  await withMock([{ text: "Ran nothing." }], async (sandbox, mock) => {
    const result = await runSkiff(["rn the tests"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(asked(mock), "rn the tests");
  });
});

Deno.test("bare prompt: run-only flags in the chat say to add -p", async () => {
  await withMock([], async (sandbox, mock) => {
    const result = await runSkiff(["--json"], sandbox);
    assertEquals(result.code, 2, result.stderr);
    assertStringIncludes(result.stderr, "--json is for a headless run");
    assertStringIncludes(result.stderr, 'skiff -p "…"');
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test({
  name: 'bare prompt: at a terminal `skiff "…"` opens the chat with it as the first message',
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [{ text: "Here is the repo, explained." }],
      `'explain this repo'`,
      async (session, _sandbox, mock) => {
        const screen = await shows(session, "Here is the repo, explained.");
        assertStringIncludes(screen, "› explain this repo");
        assertStringIncludes(screen, "Ctrl-D to exit");
        assertEquals(asked(mock), "explain this repo");
        await press(session, "C-d");
        const after = await shows(session, "SKIFF_EXIT=");
        assertStringIncludes(after, "SKIFF_EXIT=0");
        assertStringIncludes(after, "Continue this conversation with: skiff --resume");
      },
      { prefix: "skiff-bare" },
    );
  },
});
