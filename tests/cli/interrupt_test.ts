/**
 * Ctrl-C, end to end: what was streamed before it is kept for `--continue`;
 * under `deno task skiff` (where one press arrives twice) one press is one
 * interruption and two separate presses still force an exit; and Ctrl-C at an
 * approval prompt interrupts the run instead of refusing the call.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox, spawnSkiff } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";
import { interruptHandler } from "../../src/cli/interrupts.ts";

const DENO_JSON = new URL("../../deno.json", import.meta.url).pathname;

const hasTmux = await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
  .output().then((output) => output.success, () => false);
if (!hasTmux) {
  console.warn("!!! SKIPPED the Ctrl-C tests at a real terminal: tmux is not installed !!!");
}

Deno.test("signals within 300 ms of a press are that press; a later one forces the exit", () => {
  let now = 0;
  const seen: string[] = [];
  const onSignal = interruptHandler({
    stop: () => seen.push("stop"),
    forceExit: () => seen.push("exit"),
    clock: () => now,
  });
  onSignal(); // the terminal's SIGINT
  now = 3;
  onSignal(); // the task runner's copy of it
  now = 250;
  onSignal();
  assertEquals(seen, ["stop"]);
  now = 1_250; // a second press, a second later
  onSignal();
  assertEquals(seen, ["stop", "exit"]);
});

/**
 * A model endpoint that streams `shown` and then never finishes, as a model
 * does while it is still writing when the person presses Ctrl-C.
 */
function startStallingServer(shown: string) {
  const closing = new AbortController();
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.body?.cancel();
    requests++;
    const chunk = (delta: Record<string, unknown>) =>
      `data: ${
        JSON.stringify({
          id: "chatcmpl-stall",
          object: "chat.completion.chunk",
          created: 0,
          model: "mock-model",
          choices: [{ index: 0, delta, finish_reason: null }],
        })
      }\n\n`;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const encoder = new TextEncoder();
        controller.enqueue(encoder.encode(chunk({ role: "assistant", content: "" })));
        controller.enqueue(encoder.encode(chunk({ content: shown })));
        closing.signal.addEventListener("abort", () => {
          try {
            controller.close();
          } catch { /* the client hung up first */ }
        }, { once: true });
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/v1`,
    requests: () => requests,
    async close() {
      closing.abort();
      await server.shutdown();
    },
  };
}

/** Reads a child's stdout until `text` appears; returns all read so far and the rest later. */
async function readUntil(
  stream: ReadableStream<Uint8Array>,
  text: string,
): Promise<{ seen: string; rest: Promise<string> }> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`"${text}" never appeared; output:\n${seen}`);
    seen += value;
  }
  const rest = (async () => {
    let more = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return more;
      more += value;
    }
  })();
  return { seen, rest };
}

Deno.test("text streamed before a Ctrl-C is stored, and --continue sends user, assistant, user", async () => {
  const shown = "Step one: I looked at parser.ts and";
  const stalling = startStallingServer(shown);
  const mock = startMockServer([{ text: "Picking up where I stopped." }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: stalling.url, SKIFF_MODEL: "mock-model" });
  try {
    const child = spawnSkiff(["run", "--json", "explain the parser"], sandbox);
    const stderr = new Response(child.stderr).text();
    const { rest } = await readUntil(child.stdout, '"message.delta"');
    child.kill("SIGINT");
    const [status, more] = await Promise.all([child.status, rest]);
    assertEquals(status.code, 130, await stderr);
    const events = parseJsonLines(more);
    assertEquals(events.at(-1)?.type, "session.completed");

    const resumed = await runSkiff(["run", "--json", "--continue", "go on"], sandbox, {
      env: { OPENAI_BASE_URL: mock.url },
    });
    assertEquals(resumed.code, 0, resumed.stderr);
    const messages = mock.requests[0].messages as { role: string; content: string | null }[];
    assertEquals(messages.map((message) => message.role), [
      "system",
      "user",
      "assistant",
      "user",
    ]);
    assertStringIncludes(messages[2].content ?? "", shown);
    assertStringIncludes(messages[2].content ?? "", "interrupted");
    assertEquals(messages[3].content, "go on");
  } finally {
    await stalling.close();
    await mock.close();
    await sandbox.cleanup();
  }
});

async function tmux(...args: string[]): Promise<string> {
  const output = await new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout);
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

interface Screen {
  shows(text: string, timeoutMs?: number): Promise<string>;
  keys(...keys: string[]): Promise<void>;
}

/**
 * `skiff run <args>` at a 120×50 tmux terminal, started the way people start
 * it today (`deno task skiff`, unless `direct`); stdout goes to
 * `<root>/stdout.txt`, and `SKIFF_EXIT=<code>` is shown when it ends.
 */
async function atTerminal(
  sandbox: Sandbox,
  args: string[],
  work: (screen: Screen) => Promise<void>,
): Promise<void> {
  const session = `skiff-intr-${crypto.randomUUID().slice(0, 8)}`;
  const env = Object.entries(sandbox.env).map(([name, value]) => `${name}=${quote(value)}`)
    .join(" ");
  const skiff = `${quote(Deno.execPath())} task --quiet --config ${quote(DENO_JSON)} skiff`;
  // The shell traps SIGINT (its children get the default back), so it lives
  // on to print the exit code whatever deno task does with the signal.
  const command = `trap : INT; cd ${
    quote(sandbox.workspace)
  } && env -i ${env} TERM=xterm ${skiff} run --dir ${quote(sandbox.workspace)} ${
    args.map(quote).join(" ")
  } > ${quote(`${sandbox.root}/stdout.txt`)}; echo SKIFF_EXIT=$?; sleep 60`;
  const screen: Screen = {
    async shows(text, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = await tmux("capture-pane", "-t", session, "-p", "-S", "-200");
        if (shown.includes(text)) return shown;
        if (Date.now() > deadline) throw new Error(`"${text}" never appeared; screen:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async keys(...keys) {
      for (const key of keys) await tmux("send-keys", "-t", session, key);
    },
  };
  try {
    await tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "50", command);
    await work(screen);
  } finally {
    await tmux("kill-session", "-t", session);
  }
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 40_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: still waiting after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function withMock(
  script: MockTurn[],
  work: (sandbox: Sandbox, requests: () => number) => Promise<void>,
) {
  const mock = startMockServer(script);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await work(sandbox, () => mock.requests.length);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

/**
 * A command that ignores SIGTERM (outside bwrap, whose namespace would end it
 * at once), so an orderly stop waits out the 2 s kill grace: long enough for
 * a duplicate signal, or a second press, to land while the run is stopping.
 */
const stubborn: MockTurn[] = [
  { toolCalls: [{ name: "bash", arguments: { command: "trap '' TERM; sleep 30" } }] },
  { text: "done" },
];
const stubbornArgs = ["--json", "--sandbox", "full-access", "--allow", "bash(*)", "run it"];

async function commandStarted(sandbox: Sandbox): Promise<void> {
  await waitFor(() => {
    try {
      return Deno.readTextFileSync(`${sandbox.root}/stdout.txt`).includes('"tool.started"');
    } catch {
      return false;
    }
  }, "the command to start");
  await new Promise((resolve) => setTimeout(resolve, 500));
}

async function sessionStatus(sandbox: Sandbox): Promise<string> {
  const listed = await runSkiff(["sessions", "list", "--json"], sandbox);
  const sessions = parseJsonLines(listed.stdout) as { status?: string }[];
  return JSON.stringify(sessions.map((session) => session.status));
}

Deno.test({
  name:
    "under deno task, one Ctrl-C interrupts once: session.completed, status interrupted, exit 130",
  ignore: !hasTmux,
  async fn() {
    await withMock(stubborn, async (sandbox) => {
      await atTerminal(sandbox, stubbornArgs, async (screen) => {
        await commandStarted(sandbox);
        await screen.keys("C-c");
        const shown = await screen.shows("SKIFF_EXIT=");
        assertStringIncludes(shown, "SKIFF_EXIT=130");
      });
      const events = parseJsonLines(await Deno.readTextFile(`${sandbox.root}/stdout.txt`));
      const last = events.at(-1)!;
      assertEquals(last.type, "session.completed", JSON.stringify(events.map((e) => e.type)));
      assertEquals(last.exit_code, 130);
      assertStringIncludes(await sessionStatus(sandbox), "interrupted");
    });
  },
});

Deno.test({
  name: "under deno task, two Ctrl-C presses a second apart still force an exit",
  ignore: !hasTmux,
  async fn() {
    await withMock(stubborn, async (sandbox) => {
      await atTerminal(sandbox, stubbornArgs, async (screen) => {
        await commandStarted(sandbox);
        await screen.keys("C-c");
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const pressed = Date.now();
        await screen.keys("C-c");
        const shown = await screen.shows("SKIFF_EXIT=");
        assertStringIncludes(shown, "SKIFF_EXIT=130");
        assert(Date.now() - pressed < 1_500, `exit took ${Date.now() - pressed} ms`);
      });
      const events = parseJsonLines(await Deno.readTextFile(`${sandbox.root}/stdout.txt`));
      assertEquals(events.some((event) => event.type === "session.completed"), false);
    });
  },
});

Deno.test({
  name:
    "Ctrl-C at an approval prompt interrupts the run (130); the call neither runs nor counts as refused",
  ignore: !hasTmux,
  async fn() {
    const makeFile: MockTurn[] = [
      { toolCalls: [{ name: "bash", arguments: { command: "echo approved > made.txt" } }] },
      { text: "Finished." },
    ];
    await withMock(makeFile, async (sandbox, requests) => {
      await atTerminal(sandbox, ["do it"], async (screen) => {
        await screen.shows("Allow this?");
        await screen.keys("C-c");
        const shown = await screen.shows("SKIFF_EXIT=");
        assertStringIncludes(shown, "SKIFF_EXIT=130");
        // The collapsed question says what happened, not the option under the cursor.
        assertStringIncludes(shown, "Interrupted: not run");
        assert(!shown.includes("Allow once"), shown);
        assert(!shown.includes("refused"), shown);
      });
      assertEquals(requests(), 1, "the model was not asked again");
      const made = await Deno.stat(`${sandbox.workspace}/made.txt`).then(() => true, () => false);
      assertEquals(made, false);
      assertStringIncludes(await sessionStatus(sandbox), "interrupted");
    });
  },
});
