/**
 * /model, /compact and /mcp in the chat at a real terminal (tmux) against
 * the mock, with the engine in its Worker (the default, not
 * SKIFF_ENGINE=inline): /model lists the endpoint's `GET /models` and
 * switches; /compact summarises through the engine; /mcp names a real MCP
 * server's state and tools.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inChat,
  shows,
  typeLine,
  visible,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import type { MockTurn } from "../support/mock_server.ts";
import type { Sandbox } from "../support/cli.ts";
import { HANDOFF_MARK, SUMMARY_PROMPT } from "../../src/engine/context/summary.ts";
import { hasEverything, stdioServer } from "../mcp/everything.ts";

warnWithoutTmux("the chat's /model, /compact and /mcp tests in a real terminal");

type Message = { role: string; content: string | null };
const messagesOf = (request: Record<string, unknown> | undefined) =>
  (request?.messages ?? []) as Message[];

const globalConfig = (config: unknown) => (sandbox: Sandbox) =>
  Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify(config));

Deno.test({
  name:
    "chat /model: lists the endpoint's GET /models with the current one marked; /model <name> switches the next request and the status line, as /agent does",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Answered by the other one." }], async (session, _sandbox, mock) => {
      await typeLine(session, "/model");
      const listed = await shows(session, "Switch with /model <name>.");
      assertStringIncludes(listed, "Available:");
      assert(/● mock-model/.test(listed), `the current model is not marked:\n${listed}`);
      assertStringIncludes(listed, "  other-model");
      await typeLine(session, "/model other-model");
      await shows(session, "Model: other-model from the next prompt.");
      await typeLine(session, "hello");
      await shows(session, "Answered by the other one.");
      assertEquals(mock.requests[0].model, "other-model");
      const status = (await visible(session)).filter((row) => row.includes(" · build"));
      assertStringIncludes(status.join("\n"), "other-model", "the status line names the new model");
      await typeLine(session, "/agent plan");
      await shows(session, "Agent: plan from the next prompt.");
      const rows = (await visible(session)).filter((row) => row.includes("other-model · "));
      assertStringIncludes(
        rows.join("\n"),
        "other-model · plan",
        "the status line names the agent",
      );
    }, { mock: { models: ["other-model", "mock-model"] } });
  },
});

const step = (n: number): MockTurn => ({
  text: `Step ${n}: looked through the notes module for helpers to rename. `.repeat(20),
  toolCalls: [{ name: "glob", arguments: { pattern: `notes_${n}/*.md` }, id: `call_${n}` }],
});

Deno.test({
  name:
    "chat /compact: through the engine's Worker, the summary request carries the focus and the next prompt starts from the handoff",
  ignore: !hasTmux,
  async fn() {
    const script: MockTurn[] = [
      step(1),
      step(2),
      step(3),
      step(4),
      { text: "Renamed the first helpers." },
      { text: "## Task\n> Rename the helpers.\n## Next steps\n- rename parse_note next" },
      { text: "Continuing from the handoff." },
    ];
    await inChat(script, async (session, _sandbox, mock) => {
      await typeLine(session, "Rename the helpers in the notes module.");
      await shows(session, "Renamed the first helpers.");
      await typeLine(session, "/compact the parse_note rename");
      const screen = await shows(session, "Compacted:");
      assertStringIncludes(screen, "context compacted");
      const asked = messagesOf(mock.requests[5]);
      assertEquals(asked[0].content, SUMMARY_PROMPT);
      assertStringIncludes(asked[1].content!, "Keep in focus: the parse_note rename");
      await typeLine(session, "Go on.");
      await shows(session, "Continuing from the handoff.");
      const sent = messagesOf(mock.requests[6]);
      assert(
        sent.some((message) => message.content?.startsWith(HANDOFF_MARK)),
        JSON.stringify(sent).slice(0, 400),
      );
      assert(!sent.some((message) => message.content?.startsWith("Step 1:")), "step 1 replaced");
      assertEquals(sent.at(-1)!.content, "Go on.");
    });
  },
});

Deno.test({
  name: "chat /mcp: a real stdio MCP server from the config is listed as connected with its tools",
  ignore: !hasTmux || !hasEverything,
  async fn() {
    await inChat([], async (session) => {
      await typeLine(session, "/mcp");
      const screen = await shows(session, "everything (stdio");
      assert(/everything \(stdio, [^)]*\): connected/.test(screen), screen);
      assert(/^\s+everything_echo$/m.test(screen), `its echo tool is not listed:\n${screen}`);
    }, {
      // The server's own environment does not inherit skiff's: DENO_DIR points it at the
      // package cache, or it fetches every npm package again into the test's empty home.
      prepare: (sandbox) =>
        globalConfig({
          mcp: { everything: stdioServer({ env: { DENO_DIR: sandbox.env.DENO_DIR } }) },
        })(sandbox),
    });
  },
});
