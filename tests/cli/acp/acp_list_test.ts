/**
 * `session/list` from the ACP SDK's client side: skiff says it lists
 * sessions at `initialize`, and the list holds the stored session a prompt
 * made, for its folder and for every folder, and none for another folder.
 */
import * as path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { assertEquals } from "../../support/assert.ts";
import { withMockSandbox } from "../../support/cli.ts";
import { startAcp } from "../../support/acp_client.ts";

Deno.test("skiff acp: session/list lists the stored sessions of the folder the editor names", async () => {
  await withMockSandbox([{ text: "hello" }], async (sandbox) => {
    const editor = await startAcp(sandbox);
    try {
      assertEquals(editor.agentCapabilities.sessionCapabilities?.list, {});
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: sandbox.workspace,
        mcpServers: [],
      });
      await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "say hello" }],
      });
      const list = (cwd?: string) =>
        editor.agent.request("session/list", cwd ? { cwd } : {}) as Promise<
          acp.ListSessionsResponse
        >;
      const here = await list(sandbox.workspace);
      assertEquals(here.sessions.map((session) => session.sessionId), [sessionId]);
      assertEquals(here.sessions[0].cwd, sandbox.workspace);
      assertEquals(typeof here.sessions[0].updatedAt, "string");
      assertEquals((await list()).sessions.map((session) => session.sessionId), [sessionId]);
      const elsewhere = path.join(sandbox.root, "elsewhere");
      await Deno.mkdir(elsewhere);
      assertEquals((await list(elsewhere)).sessions, []);
    } finally {
      await editor.stop();
    }
  });
});
