/**
 * The terminal side's check of the engine's editor requests, as an engine
 * Worker gone bad would meet it: a read or write outside the Worker's
 * folders, by a plain path, by `..`, or through a symlink inside the
 * workspace that leads out, is refused and the editor never hears of it.
 * Control: the same requests inside the folders, or with an unrestricted
 * grant (full access), reach the editor.
 */
import * as path from "node:path";
import { assertEquals, assertRejects } from "../support/assert.ts";
import { relayEditorRequest } from "../../src/host/editor_relay.ts";
import type { EditorFiles } from "../../src/contracts/editor_files.ts";

function recordingEditor(): { editor: EditorFiles; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    editor: {
      read: (file) => {
        asked.push(`read ${file}`);
        return Promise.resolve("buffer");
      },
      write: (file) => {
        asked.push(`write ${file}`);
        return Promise.resolve();
      },
    },
  };
}

Deno.test("an editor request outside the Worker's folders never reaches the editor; inside it does", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-relay-" }));
  try {
    const workspace = path.join(root, "work");
    const outside = path.join(root, "outside");
    await Deno.mkdir(workspace);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(path.join(outside, "secret.txt"), "secret\n");
    await Deno.symlink(outside, path.join(workspace, "link"));
    const permissions: Deno.PermissionOptionsObject = { read: [workspace], write: [workspace] };
    const { editor, asked } = recordingEditor();
    const attacks = [
      path.join(outside, "secret.txt"),
      path.join(workspace, "..", "outside", "secret.txt"),
      path.join(workspace, "link", "secret.txt"),
      "relative/secret.txt",
    ];
    for (const file of attacks) {
      for (
        const request of [{ op: "read" as const, file }, { op: "write" as const, file, text: "x" }]
      ) {
        await assertRejects(
          () => relayEditorRequest(request, editor, permissions),
          Error,
          "the editor was not asked",
        );
      }
    }
    assertEquals(asked, []);
    // Control: inside the folders, and with full access, the editor is asked.
    const inside = path.join(workspace, "notes.txt");
    assertEquals(
      await relayEditorRequest({ op: "read", file: inside }, editor, permissions),
      "buffer",
    );
    await relayEditorRequest({ op: "write", file: inside, text: "new" }, editor, permissions);
    const secret = path.join(outside, "secret.txt");
    await relayEditorRequest({ op: "read", file: secret }, editor, { read: true, write: true });
    assertEquals(asked, [`read ${inside}`, `write ${inside}`, `read ${secret}`]);
    // A read-only grant lets reads through and refuses writes.
    await assertRejects(
      () =>
        relayEditorRequest({ op: "write", file: inside, text: "x" }, editor, {
          read: [workspace],
          write: false,
        }),
      Error,
      "may write",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
