/**
 * `session/resume` and `session/close` from the ACP SDK's client side:
 * skiff says it offers both at `initialize`; a resumed session continues
 * its stored history without sending it again (a session of another folder
 * is refused, as for `session/load`); a closed session stops its running
 * command and is served no more, while the connection goes on.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { runSkiff, withMockSandbox } from "../../support/cli.ts";
import { startAcp } from "../../support/acp_client.ts";
import { sleeping } from "../../support/processes.ts";
import { until } from "../../support/batch_tasks.ts";

const refusal = (work: Promise<unknown>) =>
  work.then(() => undefined, (error: acp.RequestError) => error);

Deno.test("skiff acp: session/resume continues a stored session without sending its history again", async () => {
  await withMockSandbox(
    [{ text: "the first answer" }, { text: "the second answer" }],
    async (sandbox, mock) => {
      const first = await runSkiff(["run", "--json", "the first question"], sandbox);
      assertEquals(first.code, 0, first.stderr);
      const sessionId = String(JSON.parse(first.stdout.split("\n")[0]).session_id);
      const editor = await startAcp(sandbox);
      try {
        assertEquals(editor.agentCapabilities.sessionCapabilities?.resume, {});
        const elsewhere = await refusal(editor.agent.request("session/resume", {
          sessionId,
          cwd: sandbox.home,
        }));
        assertEquals(elsewhere?.code, -32602);
        assertStringIncludes(elsewhere?.message ?? "", `belongs to ${sandbox.workspace}`);
        const resumed = await editor.agent.request("session/resume", {
          sessionId,
          cwd: sandbox.workspace,
        });
        assertEquals(resumed.modes?.currentModeId, "build");
        // Nothing of the earlier history is sent again (session/load would replay it).
        assertEquals(editor.updates.filter((update) => update.sessionId === sessionId), []);
        const answer = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "the second question" }],
        });
        assertEquals(answer.stopReason, "end_turn");
        // The model still sees the stored conversation.
        assertStringIncludes(JSON.stringify(mock.requests[1].messages), "the first answer");
      } finally {
        await editor.stop();
      }
    },
  );
});

Deno.test("skiff acp: session/close stops the session's running command; the connection goes on", async () => {
  const marker = "71.2718";
  await withMockSandbox(
    [
      { toolCalls: [{ name: "bash", arguments: { command: `sleep ${marker}` } }] },
      { text: "never asked" },
      { text: "the other session answers" },
    ],
    async (sandbox) => {
      const editor = await startAcp(sandbox, ["--allow", "bash(sleep *)"]);
      try {
        assertEquals(editor.agentCapabilities.sessionCapabilities?.close, {});
        const open = () =>
          editor.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] });
        const { sessionId } = await open();
        const running = editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "wait a minute" }],
        });
        await until(() => sleeping(marker), "the sleep to start", 30_000);
        assertEquals(await editor.agent.request("session/close", { sessionId }), {});
        assertEquals((await running).stopReason, "cancelled");
        await until(() => !sleeping(marker), "the sleep to be stopped", 5_000);
        // Closed: no more prompts, no second close.
        const after = await refusal(editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "still there?" }],
        }));
        assertEquals(after?.code, -32602);
        assertStringIncludes(after?.message ?? "", `no open session ${sessionId}`);
        const again = await refusal(editor.agent.request("session/close", { sessionId }));
        assertEquals(again?.code, -32602);
        // The connection serves a new session.
        const other = await open();
        assert(other.sessionId !== sessionId);
        const answer = await editor.agent.request("session/prompt", {
          sessionId: other.sessionId,
          prompt: [{ type: "text", text: "hello" }],
        });
        assertEquals(answer.stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
    },
  );
});
