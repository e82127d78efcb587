/**
 * `skiff acp` driven as an editor drives it: the ACP SDK's client side over
 * the child's stdio, against the scripted model. A prompt streams its answer
 * in chunks into a stored session `skiff sessions list` shows and `skiff run
 * --continue` continues; a command that asks is put to the editor and runs
 * only on its yes; a cancel stops a running command; an earlier session
 * loads with its history replayed; a malformed message gets a JSON-RPC
 * error and the process goes on serving.
 */
import * as path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff, withMockSandbox } from "../../support/cli.ts";
import { startDialectServer } from "../../support/dialect_server.ts";
import { answerText, option, startAcp, updatesOf } from "../../support/acp_client.ts";
import { sleeping } from "../../support/processes.ts";
import { until } from "../../support/batch_tasks.ts";

const exists = (file: string) => Deno.stat(file).then(() => true, () => false);

/** Waits until `check` holds, for up to `ms`; fails naming `what` otherwise. */

/** The message texts of a model request, joined. */
function requestText(body: Record<string, unknown>): string {
  return JSON.stringify(body.messages);
}

Deno.test("skiff acp: a prompt streams its answer in chunks into a stored session skiff continues", async () => {
  await withMockSandbox(
    [{ text: "Hello from skiff inside the editor." }, { text: "continued" }],
    async (sandbox, mock) => {
      const editor = await startAcp(sandbox);
      let sessionId = "";
      try {
        const created = await editor.agent.request("session/new", {
          cwd: sandbox.workspace,
          mcpServers: [],
        });
        sessionId = created.sessionId;
        const modes = created.modes?.availableModes.map((mode) => mode.id) ?? [];
        assertEquals(created.modes?.currentModeId, "build");
        assert(modes.includes("plan"), `modes: ${modes}`);
        const answer = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "say hello" }],
        });
        assertEquals(answer.stopReason, "end_turn");
        const chunks = updatesOf(editor, sessionId, "agent_message_chunk");
        assert(chunks.length > 1, `the answer came in ${chunks.length} chunk(s)`);
        assertEquals(answerText(editor, sessionId), "Hello from skiff inside the editor.");
        // A mode is an agent; one skiff does not have is refused with the list.
        await editor.agent.request("session/set_mode", { sessionId, modeId: "plan" });
        const refused = await editor.agent.request("session/set_mode", {
          sessionId,
          modeId: "no-such-agent",
        }).then(() => undefined, (error: acp.RequestError) => error);
        assertEquals(refused?.code, -32602);
        assertStringIncludes(refused?.message ?? "", "build");
      } finally {
        assert(await editor.stop(), "skiff acp did not end when the editor closed its stdin");
      }
      const listed = await runSkiff(["sessions", "list"], sandbox);
      assertStringIncludes(listed.stdout, sessionId.slice(0, 8));
      const continued = await runSkiff(["run", "--continue", "and again"], sandbox);
      assertEquals(continued.code, 0, continued.stderr);
      assertStringIncludes(requestText(mock.requests[1]), "say hello");
    },
  );
});

Deno.test("skiff acp: a command that asks runs on the editor's allow and not on its reject", async () => {
  await withMockSandbox(
    [
      { toolCalls: [{ name: "bash", arguments: { command: "touch allowed.txt" } }] },
      { text: "made it" },
      { toolCalls: [{ name: "bash", arguments: { command: "touch rejected.txt" } }] },
      { text: "was refused" },
    ],
    async (sandbox) => {
      const editor = await startAcp(sandbox, ["--ask", "bash"], (question) =>
        option(
          question,
          (question.toolCall.title ?? "").includes("allowed.txt") ? "allow_once" : "reject_once",
        ));
      try {
        for (const file of ["allowed.txt", "rejected.txt"]) {
          const { sessionId } = await editor.agent.request("session/new", {
            cwd: sandbox.workspace,
            mcpServers: [],
          });
          const answer = await editor.agent.request("session/prompt", {
            sessionId,
            prompt: [{ type: "text", text: `touch ${file}` }],
          });
          assertEquals(answer.stopReason, "end_turn");
          const calls = updatesOf(editor, sessionId, "tool_call");
          assertEquals(calls.map((call) => [call.kind, call.status]), [["execute", "in_progress"]]);
          const ended = updatesOf(editor, sessionId, "tool_call_update");
          assertEquals(ended.map((update) => update.toolCallId), [calls[0].toolCallId]);
          assertEquals(ended[0].status, file === "allowed.txt" ? "completed" : "failed");
        }
        assertEquals(editor.questions.length, 2);
        const kinds = editor.questions[0].options.map((choice) => choice.kind);
        assertEquals(kinds, ["allow_once", "allow_always", "reject_once"]);
        assertStringIncludes(editor.questions[0].toolCall.title ?? "", "touch allowed.txt");
        assert(await exists(path.join(sandbox.workspace, "allowed.txt")), "allowed.txt was made");
        assert(
          !(await exists(path.join(sandbox.workspace, "rejected.txt"))),
          "rejected.txt was made although the editor rejected the command",
        );
      } finally {
        await editor.stop();
      }
    },
  );
});

Deno.test("skiff acp: session/cancel stops a running command and the turn; the next prompt is served", async () => {
  const marker = "61.4207";
  await withMockSandbox(
    [
      { toolCalls: [{ name: "bash", arguments: { command: `sleep ${marker}` } }] },
      { text: "after the cancel" },
    ],
    async (sandbox) => {
      const editor = await startAcp(sandbox, ["--allow", "bash(sleep *)"]);
      try {
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: sandbox.workspace,
          mcpServers: [],
        });
        const started = Date.now();
        const prompt = editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "wait a minute" }],
        });
        await until(
          () => updatesOf(editor, sessionId, "tool_call").length > 0,
          "the sleep's tool call",
          30_000,
        );
        await until(() => sleeping(marker), "the sleep to start", 10_000);
        await editor.agent.notify("session/cancel", { sessionId });
        const answer = await prompt;
        const took = Date.now() - started;
        assertEquals(answer.stopReason, "cancelled");
        assert(took < 30_000, `the cancelled prompt took ${took} ms`);
        const ended = updatesOf(editor, sessionId, "tool_call_update");
        assertEquals(ended.map((update) => update.status), ["failed"]);
        await until(() => !sleeping(marker), "the sleep to be stopped", 5_000);
        const next = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "go on" }],
        });
        assertEquals(next.stopReason, "end_turn");
        assertStringIncludes(answerText(editor, sessionId), "after the cancel");
      } finally {
        await editor.stop();
      }
    },
  );
});

Deno.test("skiff acp: session/load replays an earlier session's history and continues it", async () => {
  await withMockSandbox(
    [{ text: "the first answer" }, { text: "the second answer" }],
    async (sandbox, mock) => {
      const first = await runSkiff(["run", "--json", "the first question"], sandbox);
      assertEquals(first.code, 0, first.stderr);
      const sessionId = String(JSON.parse(first.stdout.split("\n")[0]).session_id);
      const editor = await startAcp(sandbox);
      try {
        // A session of this folder is not loaded into another one.
        const elsewhere = await editor.agent.request("session/load", {
          sessionId,
          cwd: sandbox.home,
          mcpServers: [],
        }).then(() => undefined, (error: acp.RequestError) => error);
        assertEquals(elsewhere?.code, -32602);
        assertStringIncludes(elsewhere?.message ?? "", `belongs to ${sandbox.workspace}`);
        const loaded = await editor.agent.request("session/load", {
          sessionId,
          cwd: sandbox.workspace,
          mcpServers: [],
        });
        assertEquals(loaded.modes?.currentModeId, "build");
        const replayed = editor.updates.filter((update) => update.sessionId === sessionId)
          .map((update) => update.update)
          .flatMap((update) =>
            (update.sessionUpdate === "user_message_chunk" ||
                update.sessionUpdate === "agent_message_chunk") &&
              update.content.type === "text"
              ? [[update.sessionUpdate, update.content.text]]
              : []
          );
        assertEquals(replayed, [
          ["user_message_chunk", "the first question"],
          ["agent_message_chunk", "the first answer"],
        ]);
        const answer = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "the second question" }],
        });
        assertEquals(answer.stopReason, "end_turn");
        assertStringIncludes(requestText(mock.requests[1]), "the first answer");
      } finally {
        await editor.stop();
      }
    },
  );
});

Deno.test("skiff acp: a malformed message gets a JSON-RPC error and the process keeps serving", async () => {
  await withMockSandbox([{ text: "still here" }], async (sandbox) => {
    const editor = await startAcp(sandbox);
    try {
      await editor.raw("this is not json {");
      await until(
        () => editor.rawLines.some((line) => line.includes("-32700")),
        "a parse error on stdout",
        10_000,
      );
      const parseError = JSON.parse(editor.rawLines.find((line) => line.includes("-32700"))!);
      assertEquals(parseError.id, null);
      assertEquals(parseError.error.code, -32700);
      // Valid JSON, wrong params: invalid params, naming what is wrong.
      const wrong = await editor.agent.request("session/prompt", { sessionId: 7 } as never)
        .then(() => undefined, (error: acp.RequestError) => error);
      assertEquals(wrong?.code, -32602);
      const unknown = await editor.agent.request("session/prompt", {
        sessionId: "no-such-session",
        prompt: [{ type: "text", text: "hi" }],
      }).then(() => undefined, (error: acp.RequestError) => error);
      assertEquals(unknown?.code, -32602);
      assertStringIncludes(unknown?.message ?? "", "session/new");
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: sandbox.workspace,
        mcpServers: [],
      });
      const answer = await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "are you there?" }],
      });
      assertEquals(answer.stopReason, "end_turn");
      assertEquals(answerText(editor, sessionId), "still here");
    } finally {
      await editor.stop();
    }
  });
});

/**
 * A hostile repository opened in the editor: a server the editor passes may
 * come from the project's own settings, and starts as the user. In a project
 * nobody trusted it is not started; the control, with --trust-project, shows
 * the same entry does start.
 */
for (const trusted of [false, true]) {
  Deno.test(`skiff acp: the editor's MCP server ${trusted ? "starts in a trusted project (control)" : "is not started in an untrusted project"}`, async () => {
    await withMockSandbox([{ text: "ok" }], async (sandbox) => {
      const started = path.join(sandbox.root, "server-started");
      const editor = await startAcp(sandbox, trusted ? ["--trust-project"] : []);
      try {
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: sandbox.workspace,
          mcpServers: [{
            name: "from-the-editor",
            command: "sh",
            args: ["-c", `touch '${started}'`],
            env: [],
          }],
        });
        const answer = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "hi" }],
        });
        assertEquals(answer.stopReason, "end_turn");
        if (trusted) {
          assert(await exists(started), "the trusted project's editor server did not start");
        } else {
          assert(!(await exists(started)), "an untrusted project's editor server started");
          assertStringIncludes(editor.stderr(), "from-the-editor");
          assertStringIncludes(editor.stderr(), "--trust-project");
        }
      } finally {
        await editor.stop();
      }
    });
  });
}

Deno.test("skiff acp: a file change arrives as a diff with its location, the todo list as a plan", async () => {
  await withMockSandbox(
    [
      {
        toolCalls: [
          { name: "write", arguments: { file_path: "notes.txt", content: "one\ntwo\n" } },
          {
            name: "todowrite",
            arguments: {
              todos: [
                { content: "write the notes", status: "completed", priority: "high" },
                { content: "read them back", status: "pending", priority: "low" },
              ],
            },
          },
        ],
      },
      { text: "written" },
    ],
    async (sandbox) => {
      const editor = await startAcp(sandbox);
      try {
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: sandbox.workspace,
          mcpServers: [],
        });
        const answer = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "take notes" }],
        });
        assertEquals(answer.stopReason, "end_turn");
        const file = path.join(sandbox.workspace, "notes.txt");
        const calls = updatesOf(editor, sessionId, "tool_call");
        assertEquals(calls.map((call) => call.kind), ["edit", "think"]);
        assertEquals(calls[0].locations, [{ path: file }]);
        const written = updatesOf(editor, sessionId, "tool_call_update")
          .find((update) => update.toolCallId === calls[0].toolCallId);
        assertEquals(written?.status, "completed");
        const diff = written?.content?.find((content) => content.type === "diff");
        assertEquals(diff, { type: "diff", path: file, oldText: null, newText: "one\ntwo\n" });
        const plans = updatesOf(editor, sessionId, "plan");
        assertEquals(plans.map((plan) => plan.entries), [[
          { content: "write the notes", priority: "high", status: "completed" },
          { content: "read them back", priority: "low", status: "pending" },
        ]]);
      } finally {
        await editor.stop();
      }
    },
  );
});

Deno.test("skiff acp: an editor that goes away mid-command ends skiff and the command with it", async () => {
  const marker = "62.3141";
  await withMockSandbox(
    [{ toolCalls: [{ name: "bash", arguments: { command: `sleep ${marker}` } }] }],
    async (sandbox) => {
      const editor = await startAcp(sandbox, ["--allow", "bash(sleep *)"]);
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: sandbox.workspace,
        mcpServers: [],
      });
      void editor.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "wait a minute" }],
      }).catch(() => {});
      await until(() => sleeping(marker), "the sleep to start", 30_000);
      assert(await editor.stop(), "skiff acp did not end when the editor closed its stdin");
      await until(() => !sleeping(marker), "the sleep to be stopped", 5_000);
      const listed = await runSkiff(["sessions", "list"], sandbox);
      assertStringIncludes(listed.stdout, sessionId.slice(0, 8));
    },
  );
});

Deno.test("skiff acp: the model's reasoning streams as thought chunks before the answer", async () => {
  const server = startDialectServer("deepseek", [
    { reasoning: "The user greets me.\nI greet back.", text: "Hello." },
  ]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "test-model" });
  try {
    const editor = await startAcp(sandbox);
    try {
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: sandbox.workspace,
        mcpServers: [],
      });
      const answer = await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hello" }],
      });
      assertEquals(answer.stopReason, "end_turn");
      const kinds = editor.updates.map((update) => update.update.sessionUpdate);
      const thought = updatesOf(editor, sessionId, "agent_thought_chunk")
        .map((update) => update.content.type === "text" ? update.content.text : "").join("");
      assertEquals(thought, "The user greets me.\nI greet back.");
      assert(
        kinds.lastIndexOf("agent_thought_chunk") < kinds.indexOf("agent_message_chunk"),
        `order: ${kinds}`,
      );
      assertEquals(answerText(editor, sessionId), "Hello.");
    } finally {
      await editor.stop();
    }
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
});

Deno.test("skiff acp: a linked file is read through skiff's read tool; embedded text goes in as sent", async () => {
  await withMockSandbox([{ text: "seen" }], async (sandbox, mock) => {
    const file = path.join(sandbox.workspace, "linked.txt");
    await Deno.writeTextFile(file, "LINKED-FILE-TEXT\n");
    const editor = await startAcp(sandbox);
    try {
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: sandbox.workspace,
        mcpServers: [],
      });
      const answer = await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "look at these" },
          { type: "resource_link", uri: `file://${file}`, name: "linked.txt" },
          {
            type: "resource",
            resource: { uri: `file://${sandbox.workspace}/draft.ts`, text: "UNSAVED-BUFFER-TEXT" },
          },
        ],
      });
      assertEquals(answer.stopReason, "end_turn");
      const sent = requestText(mock.requests[0]);
      assertStringIncludes(sent, "LINKED-FILE-TEXT");
      assertStringIncludes(sent, "UNSAVED-BUFFER-TEXT");
      // The read was skiff's own tool call, shown to the editor like the model's.
      const reads = updatesOf(editor, sessionId, "tool_call").filter((call) =>
        call.kind === "read"
      );
      assertEquals(reads.map((call) => call.locations), [[{ path: file }]]);
    } finally {
      await editor.stop();
    }
  });
});

Deno.test("skiff acp: allow always lets the same kind of command through for the rest of the session", async () => {
  await withMockSandbox(
    [
      { toolCalls: [{ name: "bash", arguments: { command: "touch first.txt" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "touch second.txt" } }] },
      { text: "both made" },
    ],
    async (sandbox) => {
      const editor = await startAcp(
        sandbox,
        ["--ask", "bash"],
        (question) => option(question, "allow_always"),
      );
      try {
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: sandbox.workspace,
          mcpServers: [],
        });
        const answer = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "make two files" }],
        });
        assertEquals(answer.stopReason, "end_turn");
        assertEquals(editor.questions.length, 1, "the second touch was asked again");
        for (const file of ["first.txt", "second.txt"]) {
          assert(await exists(path.join(sandbox.workspace, file)), `${file} was not made`);
        }
      } finally {
        await editor.stop();
      }
    },
  );
});
