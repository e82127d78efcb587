/**
 * The first-run setup at a real terminal (tmux) against the scripted mock:
 * plain `skiff` with no model and no key asks for the endpoint, the key and
 * the model (from the endpoint's `GET /models`), writes them to the global
 * config (a new file only the user can read) and opens the chat; a key from
 * OPENAI_API_KEY is used and not written; Esc leaves with nothing written.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, type Sandbox } from "../support/cli.ts";
import { type MockServer, type MockTurn, startMockServer } from "../support/mock_server.ts";
import {
  hasTmux,
  newSession,
  press,
  removeWhenQuiet,
  sessionName,
  shows,
  skiffLine,
  tmux,
  type,
  typeLine,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("the first-run setup");

const MODELS = ["local-coder", "local-large"];

/** `skiff` with the sandbox's environment and `env` (no model, no key unless given). */
async function firstRun(
  script: MockTurn[],
  env: (mock: MockServer) => Record<string, string>,
  drive: (session: string, sandbox: Sandbox, mock: MockServer) => Promise<void>,
): Promise<void> {
  const mock = startMockServer(script, { models: MODELS });
  const sandbox = await makeSandbox(env(mock));
  const session = sessionName("skiff-first");
  try {
    await newSession(session, skiffLine(sandbox));
    await drive(session, sandbox, mock);
  } finally {
    await tmux("kill-session", "-t", session);
    await mock.close();
    await removeWhenQuiet(sandbox);
  }
}

const configFile = (sandbox: Sandbox) => path.join(sandbox.configDir, "config.json");
const exists = (file: string) => Deno.stat(file).then(() => true, () => false);

Deno.test({
  name:
    "first run: endpoint typed, a hidden key refused for a non-ASCII character then taken, a model picked by number; written 0600, the chat opens",
  ignore: !hasTmux,
  async fn() {
    await firstRun(
      [{ text: "Hello from the local model." }],
      () => ({}),
      async (session, sandbox, mock) => {
        await shows(session, "skiff is not set up yet");
        await shows(session, "Endpoint: Enter for https://api.openai.com/v1");
        await typeLine(session, mock.url);
        await shows(session, "API key (hidden; Enter for none):");
        await typeLine(session, "sk-ab…cd");
        await shows(session, "which no HTTP header can carry");
        await typeLine(session, "sk-secret-1234");
        const listed = await shows(session, "Model (a number or a name):");
        assertStringIncludes(listed, "2. local-large");
        assert(!listed.includes("sk-secret-1234"), `the key was echoed:\n${listed}`);
        await typeLine(session, "2");
        await shows(session, "Ctrl-D to exit");
        const config = JSON.parse(await Deno.readTextFile(configFile(sandbox)));
        assertEquals(config, {
          provider: { baseURL: mock.url, apiKey: "sk-secret-1234", model: "local-large" },
        });
        assertEquals((await Deno.stat(configFile(sandbox))).mode! & 0o777, 0o600);
        await typeLine(session, "hello");
        await shows(session, "Hello from the local model.");
        assertEquals(mock.requests[0]?.model, "local-large");
        assertEquals(mock.headers[0]?.authorization, "Bearer sk-secret-1234");
      },
    );
  },
});

Deno.test({
  name:
    "first run: the key from OPENAI_API_KEY is used and not written; a model typed by a near name is refused, then taken",
  ignore: !hasTmux,
  async fn() {
    await firstRun(
      [{ text: "Ready." }],
      (mock) => ({ OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: "sk-from-env" }),
      async (session, sandbox, mock) => {
        await shows(session, "API key: OPENAI_API_KEY from the environment");
        await shows(session, "Model (a number or a name):");
        await typeLine(session, "local-codr");
        await shows(session, "did you mean local-coder");
        await typeLine(session, "local-coder");
        await shows(session, "Ctrl-D to exit");
        const text = await Deno.readTextFile(configFile(sandbox));
        assert(!text.includes("sk-from-env"), `the environment's key was written:\n${text}`);
        assertEquals(JSON.parse(text), { provider: { model: "local-coder" } });
        await typeLine(session, "hi");
        await shows(session, "Ready.");
        assertEquals(mock.headers[0]?.authorization, "Bearer sk-from-env");
      },
    );
  },
});

Deno.test({
  name: "first run: Esc at a question exits 2 with nothing written",
  ignore: !hasTmux,
  async fn() {
    await firstRun([], (mock) => ({ OPENAI_BASE_URL: mock.url }), async (session, sandbox) => {
      await shows(session, "Model (a number or a name):");
      await type(session, "local");
      await press(session, "Escape");
      const screen = await shows(session, "SKIFF_EXIT=");
      assertStringIncludes(screen, "Setup cancelled: nothing was written.");
      assertStringIncludes(screen, "SKIFF_EXIT=2");
      assertEquals(await exists(configFile(sandbox)), false, "a cancelled setup wrote the config");
    });
  },
});

Deno.test({
  name: "first run: Ctrl-C at the hidden key exits 2 with nothing written",
  ignore: !hasTmux,
  async fn() {
    await firstRun([], () => ({}), async (session, sandbox, mock) => {
      await shows(session, "Endpoint: Enter for");
      await typeLine(session, mock.url);
      await shows(session, "API key (hidden; Enter for none):");
      await type(session, "sk-half");
      await press(session, "C-c");
      const screen = await shows(session, "SKIFF_EXIT=");
      assertStringIncludes(screen, "SKIFF_EXIT=2");
      assertStringIncludes(screen, "no model set");
      assertEquals(await exists(configFile(sandbox)), false, "a cancelled setup wrote the config");
    });
  },
});
