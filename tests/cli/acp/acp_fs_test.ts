/**
 * `skiff acp` with an editor that offers its buffers (`fs/read_text_file`,
 * `fs/write_text_file`), driven by the ACP SDK's client side against the
 * scripted model: the model reads the buffer, not the file on disk, and an
 * edit goes to the editor and not to disk; a path the rules deny, or one
 * outside the workspace that the person rejects, never reaches the editor
 * while an allowed one does; an editor without buffers leaves everything
 * on disk; an editor that never answers or answers with an error fails the
 * one tool call within the bound and the session goes on serving; `skiff
 * undo` puts back on disk what the prompt changed when the editor saved it,
 * and leaves the disk alone when the editor kept the change unsaved; a
 * folder opened through a symlink is named to the editor as it named it.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";
import { type AcpHarness, option, startAcp, updatesOf } from "../../support/acp_client.ts";

const DISK = "saved line one\nsaved line two\n";
const BUFFER = "unsaved line one\nunsaved line two\n";

/** The model reads notes.txt, replaces the buffer's second line with `line`, then answers `answer`. */
function readThenEdit(line: string, answer: string): MockTurn[] {
  return [
    { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] },
    {
      toolCalls: [{
        name: "edit",
        arguments: { file_path: "notes.txt", old_string: "unsaved line two", new_string: line },
      }],
    },
    { text: answer },
  ];
}

/** The message texts of a model request, joined. */
function requestText(body: Record<string, unknown>): string {
  return JSON.stringify(body.messages);
}

/** Opens a session in the sandbox's workspace and runs one prompt; the stop reason and the id. */
async function prompt(
  editor: AcpHarness,
  cwd: string,
  text: string,
): Promise<{ sessionId: string; stopReason: string }> {
  const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
  const answer = await editor.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  return { sessionId, stopReason: answer.stopReason };
}

/** The paths the editor was asked about, by method. */
function askedPaths(editor: AcpHarness, method: string): string[] {
  return editor.fsRequests.filter((request) => request.method === method).map((request) =>
    request.params.path
  );
}

Deno.test("skiff acp: the model reads the editor's unsaved buffer and its edit goes to the editor, not to disk", async () => {
  await withMockSandbox(
    readThenEdit("edited line two", "edited"),
    async (sandbox, mock) => {
      const file = path.join(sandbox.workspace, "notes.txt");
      await Deno.writeTextFile(file, DISK);
      const written: string[] = [];
      const editor = await startAcp(sandbox, ["--allow", "edit"], undefined, {
        read: () => BUFFER,
        write: (params) => void written.push(params.content),
      });
      try {
        const { sessionId, stopReason } = await prompt(editor, sandbox.workspace, "edit notes");
        assertEquals(stopReason, "end_turn");
        // What the model saw after its read is the buffer, not the saved file.
        const afterRead = requestText(mock.requests[1]);
        assertStringIncludes(afterRead, "unsaved line one");
        assert(!afterRead.includes("\\tsaved line one"), "the model saw the file on disk");
        const reads = editor.fsRequests.filter((request) => request.method === "fs/read_text_file");
        assert(reads.length >= 1, "the editor was never asked for the buffer");
        assertEquals(reads[0].params.sessionId, sessionId);
        assertEquals(reads[0].params.path, file);
        // The edit matched the buffer's text and went to the editor whole.
        assertEquals(written, ["unsaved line one\nedited line two\n"]);
        assertEquals(askedPaths(editor, "fs/write_text_file"), [file]);
        assertStringIncludes(requestText(mock.requests[2]), "notes.txt");
        const ended = updatesOf(editor, sessionId, "tool_call_update");
        assertEquals(ended.map((update) => update.status), ["completed", "completed"]);
      } finally {
        await editor.stop();
      }
      assertEquals(await Deno.readTextFile(file), DISK, "skiff wrote the file on disk");
    },
  );
});

Deno.test("skiff acp: a denied path and a rejected one outside the workspace never reach the editor; an allowed one does", async () => {
  await withMockSandbox(
    [
      { toolCalls: [{ name: "read", arguments: { file_path: "private/key.txt" } }] },
      { toolCalls: [{ name: "read", arguments: { file_path: "../outside.txt" } }] },
      {
        toolCalls: [{
          name: "write",
          arguments: { file_path: "../outside.txt", content: "from the model\n" },
        }],
      },
      { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] },
      { text: "done" },
    ],
    async (sandbox, mock) => {
      await Deno.mkdir(path.join(sandbox.workspace, "private"));
      await Deno.writeTextFile(path.join(sandbox.workspace, "private/key.txt"), "secret on disk\n");
      const outside = path.join(path.dirname(sandbox.workspace), "outside.txt");
      await Deno.writeTextFile(outside, "outside on disk\n");
      await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), DISK);
      const editor = await startAcp(
        sandbox,
        ["--deny", "read(private/*)"],
        // The person rejects whatever the rules leave open.
        (question) => option(question, "reject_once"),
        { read: (params) => `buffer of ${params.path}\n`, write: () => {} },
      );
      try {
        const { stopReason } = await prompt(editor, sandbox.workspace, "look around");
        assertEquals(stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
      const results = requestText(mock.requests[4]);
      assertStringIncludes(results, "read(private/*) → deny [flags]");
      assertStringIncludes(results, "The user refused this call (external_directory");
      assertStringIncludes(results, "outside.txt is outside the workspace");
      // Control: the allowed read reached the editor, and the model got its answer.
      assertEquals(askedPaths(editor, "fs/read_text_file"), [
        path.join(sandbox.workspace, "notes.txt"),
      ]);
      assertStringIncludes(results, "buffer of");
      assertEquals(askedPaths(editor, "fs/write_text_file"), []);
      assertEquals(await Deno.readTextFile(outside), "outside on disk\n");
    },
  );
});

Deno.test("skiff acp: control: the write outside the workspace reaches the editor once --add-dir and the person allow it", async () => {
  await withMockSandbox(
    [
      {
        toolCalls: [{
          name: "write",
          arguments: { file_path: "../outside.txt", content: "from the model\n" },
        }],
      },
      { text: "done" },
    ],
    async (sandbox) => {
      const parent = path.dirname(sandbox.workspace);
      const outside = path.join(parent, "outside.txt");
      const editor = await startAcp(
        sandbox,
        ["--add-dir", parent, "--allow", "edit"],
        (question) => option(question, "allow_once"),
        { read: () => "", write: () => {} },
      );
      try {
        assertEquals((await prompt(editor, sandbox.workspace, "write")).stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
      assertEquals(askedPaths(editor, "fs/write_text_file"), [outside]);
      assert(!(await Deno.stat(outside).then(() => true, () => false)), "written on disk");
    },
  );
});

Deno.test("skiff acp: an editor without buffers leaves reads and writes on disk", async () => {
  await withMockSandbox(
    [
      { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] },
      {
        toolCalls: [{
          name: "edit",
          arguments: { file_path: "notes.txt", old_string: "saved line two", new_string: "two" },
        }],
      },
      { text: "edited" },
    ],
    async (sandbox, mock) => {
      const file = path.join(sandbox.workspace, "notes.txt");
      await Deno.writeTextFile(file, DISK);
      const editor = await startAcp(sandbox, ["--allow", "edit"]);
      try {
        assertEquals((await prompt(editor, sandbox.workspace, "edit")).stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
      assertStringIncludes(requestText(mock.requests[1]), "saved line one");
      assertEquals(editor.fsRequests, []);
      assertEquals(await Deno.readTextFile(file), "saved line one\ntwo\n");
    },
  );
});

Deno.test("skiff acp: an editor that never answers a read fails that call within the bound; the session goes on", async () => {
  await withMockSandbox(
    [
      { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] },
      { text: "the editor did not answer" },
      { text: "still here" },
    ],
    async (sandbox, mock) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), DISK);
      sandbox.env.SKIFF_EDITOR_WAIT = "1";
      const editor = await startAcp(sandbox, [], undefined, {
        read: () => new Promise<string>(() => {}),
      });
      try {
        const started = Date.now();
        const { sessionId, stopReason } = await prompt(editor, sandbox.workspace, "read it");
        assertEquals(stopReason, "end_turn");
        assert(Date.now() - started < 20_000, `the turn took ${Date.now() - started} ms`);
        const ended = updatesOf(editor, sessionId, "tool_call_update");
        assertEquals(ended.map((update) => update.status), ["failed"]);
        const toModel = requestText(mock.requests[1]);
        assertStringIncludes(toModel, "did not answer fs/read_text_file within 1 s");
        assert(!toModel.includes("saved line one"), "the read fell back to disk silently");
        // The same connection serves the next prompt.
        const next = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "again" }],
        });
        assertEquals(next.stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
    },
  );
});

Deno.test("skiff acp: an editor that answers a write with an error fails the edit and nothing lands on disk", async () => {
  await withMockSandbox(
    readThenEdit("x", "the editor refused"),
    async (sandbox, mock) => {
      const file = path.join(sandbox.workspace, "notes.txt");
      await Deno.writeTextFile(file, DISK);
      const editor = await startAcp(sandbox, ["--allow", "edit"], undefined, {
        read: () => BUFFER,
        write: () => {
          throw new Error("buffer is read-only");
        },
      });
      try {
        const { sessionId } = await prompt(editor, sandbox.workspace, "edit");
        const ended = updatesOf(editor, sessionId, "tool_call_update");
        assertEquals(ended.map((update) => update.status), ["completed", "failed"]);
      } finally {
        await editor.stop();
      }
      assertStringIncludes(requestText(mock.requests[2]), "buffer is read-only");
      assertEquals(await Deno.readTextFile(file), DISK);
    },
  );
});

Deno.test("skiff acp: skiff undo puts back the text the edit replaced when the editor saved the change", async () => {
  await withMockSandbox(
    readThenEdit("edited line two", "edited"),
    async (sandbox) => {
      const file = path.join(sandbox.workspace, "notes.txt");
      await Deno.writeTextFile(file, DISK);
      // An editor that saves what it is given, as Zed does.
      const editor = await startAcp(sandbox, ["--allow", "edit"], undefined, {
        read: () => BUFFER,
        write: (params) => Deno.writeTextFile(params.path, params.content),
      });
      try {
        assertEquals((await prompt(editor, sandbox.workspace, "edit")).stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
      assertEquals(await Deno.readTextFile(file), "unsaved line one\nedited line two\n");
      const undone = await runSkiff(["undo"], sandbox);
      assertEquals(undone.code, 0, undone.stderr);
      // The text before the prompt's change: the buffer the model read and edited.
      assertEquals(await Deno.readTextFile(file), BUFFER);
    },
  );
});

Deno.test("skiff acp: skiff undo leaves the disk alone when the editor kept the change unsaved", async () => {
  await withMockSandbox(
    readThenEdit("x", "edited"),
    async (sandbox) => {
      const file = path.join(sandbox.workspace, "notes.txt");
      await Deno.writeTextFile(file, DISK);
      const editor = await startAcp(sandbox, ["--allow", "edit"], undefined, {
        read: () => BUFFER,
        write: () => {},
      });
      try {
        assertEquals((await prompt(editor, sandbox.workspace, "edit")).stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
      const undone = await runSkiff(["undo"], sandbox);
      assertStringIncludes(undone.stdout + undone.stderr, "1 refused");
      assertStringIncludes(undone.stdout + undone.stderr, "notes.txt: changed on disk");
      assertEquals(await Deno.readTextFile(file), DISK, "undo overwrote the saved file");
    },
  );
});

Deno.test("skiff acp: a folder the editor opened through a symlink is named to it in the editor's own spelling", async () => {
  await withMockSandbox(
    [{ toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] }, { text: "read" }],
    async (sandbox, mock) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), DISK);
      const alias = path.join(path.dirname(sandbox.workspace), "alias");
      await Deno.symlink(sandbox.workspace, alias);
      const editor = await startAcp(sandbox, [], undefined, {
        read: (params) => `buffer at ${params.path}\n`,
      });
      try {
        assertEquals((await prompt(editor, alias, "read")).stopReason, "end_turn");
      } finally {
        await editor.stop();
      }
      assertEquals(askedPaths(editor, "fs/read_text_file"), [path.join(alias, "notes.txt")]);
      assertStringIncludes(requestText(mock.requests[1]), "buffer at");
    },
  );
});
