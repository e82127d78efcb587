/**
 * The approval prompt in a real terminal: skiff runs inside tmux, the test
 * reads the screen and answers with keystrokes — allow once, always here
 * (kept in the project config, or in yours for an untrusted project), and deny.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { MAIN, makeSandbox, type Sandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";

const hasTmux = await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
  .output().then((output) => output.success, () => false);
if (!hasTmux) console.warn("SKIPPED interactive approval tests: tmux is not installed");

async function tmux(...args: string[]): Promise<string> {
  const output = await new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout);
}

async function screenShows(session: string, text: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = await tmux("capture-pane", "-t", session, "-p", "-S", "-200");
    if (screen.includes(text)) return screen;
    if (Date.now() > deadline) throw new Error(`"${text}" never appeared; screen:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

async function inTerminal(
  script: MockTurn[],
  keys: string[],
  check: (sandbox: Sandbox, screen: string) => Promise<void>,
  /** Shell redirection after the command, e.g. `> answer.txt`. */
  redirect = "",
  /** Flags of `skiff run`, before the prompt. */
  flags = "",
): Promise<void> {
  const mock = startMockServer(script);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  const session = `skiff-test-${crypto.randomUUID().slice(0, 8)}`;
  const env = Object.entries(sandbox.env).map(([name, value]) => `${name}=${quote(value)}`).join(
    " ",
  );
  const command = `cd ${quote(sandbox.workspace)} && env -i ${env} TERM=xterm ${
    quote(Deno.execPath())
  } run -A --unstable-worker-options --no-prompt ${
    quote(MAIN)
  } run ${flags} 'do it' ${redirect}; echo SKIFF_EXIT=$?; sleep 60`;
  try {
    await tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "50", command);
    await screenShows(session, "Allow this?");
    for (const key of keys) await tmux("send-keys", "-t", session, key);
    const screen = await screenShows(session, "SKIFF_EXIT=");
    await check(sandbox, screen);
  } finally {
    await tmux("kill-session", "-t", session);
    await mock.close();
    await sandbox.cleanup();
  }
}

const makeFile: MockTurn[] = [
  { toolCalls: [{ name: "bash", arguments: { command: "echo approved > made.txt" } }] },
  { text: "Finished." },
];

Deno.test({
  name: "a person allows a command once at the prompt, which shows the command",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(makeFile, ["Enter"], async (sandbox, screen) => {
      assertStringIncludes(screen, "echo approved > made.txt");
      assertStringIncludes(screen, "SKIFF_EXIT=0");
      assertEquals(await Deno.readTextFile(`${sandbox.workspace}/made.txt`), "approved\n");
    });
  },
});

Deno.test({
  name: "always in this project, trusted: the command prefix rule goes into the project config",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      makeFile,
      ["Down", "Down", "Enter"],
      async (sandbox, screen) => {
        assertStringIncludes(screen, "SKIFF_EXIT=0");
        const saved = JSON.parse(await Deno.readTextFile(`${sandbox.workspace}/skiff.json`));
        assertEquals(saved.permission.bash, { "echo approved *": "allow" });
        assert(!JSON.stringify(saved).includes('"*":"allow"'), "never a bare * rule");
      },
      "",
      "--trust-project",
    );
  },
});

Deno.test({
  name:
    "always in this project, not trusted: the rule is kept in your own config, the project's untouched",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(makeFile, ["Down", "Down", "Enter"], async (sandbox, screen) => {
      assertStringIncludes(screen, "SKIFF_EXIT=0");
      const skiffJson = await Deno.stat(`${sandbox.workspace}/skiff.json`).then(
        () => true,
        () => false,
      );
      assertEquals(skiffJson, false);
      const own = JSON.parse(await Deno.readTextFile(`${sandbox.configDir}/config.json`));
      assertEquals(own.projects[await Deno.realPath(sandbox.workspace)].permission.bash, {
        "echo approved *": "allow",
      });
    });
  },
});

Deno.test({
  name: "a person denies a command: it does not run and the run exits 3",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(makeFile, ["Down", "Down", "Down", "Enter"], async (sandbox, screen) => {
      assertStringIncludes(screen, "SKIFF_EXIT=3");
      const made = await Deno.stat(`${sandbox.workspace}/made.txt`).then(() => true, () => false);
      assertEquals(made, false);
    });
  },
});

Deno.test({
  name: "with stdout in a file the question still shows on the terminal; the file holds the answer",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(makeFile, ["Enter"], async (sandbox, screen) => {
      assertStringIncludes(screen, "echo approved > made.txt");
      assertStringIncludes(screen, "SKIFF_EXIT=0");
      assertEquals(await Deno.readTextFile(`${sandbox.workspace}/made.txt`), "approved\n");
      const answer = await Deno.readTextFile(`${sandbox.workspace}/answer.txt`);
      assertEquals(answer.trim(), "Finished.");
    }, "> answer.txt");
  },
});
