/**
 * Slash commands in a real terminal: skiff runs in tmux against the scripted
 * mock model. A custom command from `.claude/commands/` reaches the model with
 * its argument substituted, and /undo puts back the file that prompt wrote.
 */
import { assert, assertStringIncludes } from "../support/assert.ts";
import { MAIN, makeSandbox, type Sandbox } from "../support/cli.ts";
import { startMockServer } from "../support/mock_server.ts";

const hasTmux = await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
  .output().then((output) => output.success, () => false);
if (!hasTmux) console.warn("SKIPPED interactive slash command tests: tmux is not installed");

async function tmux(...args: string[]): Promise<string> {
  const output = await new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout);
}

async function screenShows(session: string, text: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = await tmux("capture-pane", "-t", session, "-p", "-J", "-S", "-300");
    if (screen.includes(text)) return screen;
    if (Date.now() > deadline) throw new Error(`"${text}" never appeared; screen:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function chatLine(sandbox: Sandbox): string {
  const env = Object.entries(sandbox.env).map(([name, value]) => `${name}=${quote(value)}`)
    .join(" ");
  return `cd ${quote(sandbox.workspace)} && env -i ${env} TERM=xterm ${
    quote(Deno.execPath())
  } run -A --unstable-worker-options --no-prompt ${quote(MAIN)}; echo SKIFF_EXIT=$?; sleep 60`;
}

async function typeLine(session: string, text: string): Promise<void> {
  await tmux("send-keys", "-t", session, "-l", text);
  await tmux("send-keys", "-t", session, "Enter");
}

async function exists(file: string): Promise<boolean> {
  return await Deno.stat(file).then(() => true, () => false);
}

Deno.test({
  name:
    "chat: a custom command from .claude/commands sends its prompt with the argument substituted; /undo puts back what it wrote",
  ignore: !hasTmux,
  async fn() {
    const mock = startMockServer([
      { toolCalls: [{ name: "write", arguments: { file_path: "greeting.txt", content: "hi\n" } }] },
      { text: "Greeted and wrote the file." },
    ]);
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
    const session = `skiff-cmd-${crypto.randomUUID().slice(0, 8)}`;
    try {
      await Deno.mkdir(`${sandbox.workspace}/.claude/commands`, { recursive: true });
      await Deno.writeTextFile(
        `${sandbox.workspace}/.claude/commands/greet.md`,
        "---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $1 warmly ($ARGUMENTS).",
      );
      await tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", chatLine(sandbox));
      await screenShows(session, "Ctrl-D to exit");
      await typeLine(session, "/help");
      await screenShows(session, "/greet <name>");
      await typeLine(session, "/greet Ada");
      await screenShows(session, "Greeted and wrote the file.");
      const first = JSON.stringify(mock.requests[0]?.messages);
      assertStringIncludes(first, "Greet Ada warmly (Ada).");
      const written = `${sandbox.workspace}/greeting.txt`;
      assert(await exists(written), "the approved write did not happen");

      await typeLine(session, "/undo");
      const preview = await screenShows(session, "Put these back?");
      assertStringIncludes(preview, "greeting.txt");
      await tmux("send-keys", "-t", session, "y");
      const deadline = Date.now() + 30_000;
      while (await exists(written)) {
        assert(Date.now() < deadline, "/undo did not remove the file the prompt wrote");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await tmux("send-keys", "-t", session, "C-d");
      assertStringIncludes(await screenShows(session, "SKIFF_EXIT="), "SKIFF_EXIT=0");
    } finally {
      await tmux("kill-session", "-t", session);
      await mock.close();
      await sandbox.cleanup();
    }
  },
});
