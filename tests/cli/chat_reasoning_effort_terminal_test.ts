/**
 * `--reasoning-effort` in the chat at a real terminal (tmux): the flag
 * travels as `--model` does, so each request of the chat's session carries
 * it, over the config's (tests/provider/dialects/reasoning_effort_test.ts
 * covers the servers' forms and refusals through `skiff run`).
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox } from "../support/cli.ts";
import {
  hasTmux,
  newSession,
  press,
  removeWhenQuiet,
  sessionName,
  shows,
  skiffLine,
  tmux,
  typeLine,
} from "../support/chat_tmux.ts";
import { startDialectServer } from "../support/dialect_server.ts";

const WAIT = { timeoutMs: 25_000 };

Deno.test("chat: --reasoning-effort reaches every request, over the config's", async () => {
  if (!hasTmux) throw new Error("tmux is not installed: the chat cannot be tested");
  const server = startDialectServer("vllm", [
    { reasoning: "Short.", text: "First answer." },
    { text: "Second answer." },
  ]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "gpt-oss-20b" });
  const session = sessionName("skiff-effort");
  try {
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      JSON.stringify({ provider: { reasoningEffort: "high" } }),
    );
    await newSession(session, skiffLine(sandbox, "--reasoning-effort low"));
    await shows(session, "Ctrl-D to exit", WAIT);
    await typeLine(session, "hello");
    await shows(session, "First answer.", WAIT);
    await typeLine(session, "again");
    await shows(session, "Second answer.", WAIT);
    assertEquals(server.requests.map((request) => request.reasoning_effort), ["low", "low"]);
    await press(session, "C-d");
    const pane = await shows(session, "SKIFF_EXIT=", WAIT);
    assertStringIncludes(pane, "SKIFF_EXIT=0");
    assert(!pane.includes("refused"), pane);
  } finally {
    await tmux("kill-session", "-t", session).catch(() => "");
    await server.close();
    await removeWhenQuiet(sandbox);
  }
});
