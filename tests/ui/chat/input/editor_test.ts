import { assertEquals } from "../../../support/assert.ts";
import { KeyDecoder } from "../../../../src/ui/chat/input/keys.ts";
import { type EditorAction, LineEditor } from "../../../../src/ui/chat/input/editor.ts";

function type(editor: LineEditor, ...chunks: string[]): EditorAction[] {
  const decoder = new KeyDecoder();
  return chunks.flatMap((chunk) => decoder.feed(chunk)).map((key) => editor.handle(key));
}

Deno.test("a bracketed paste split across chunks arrives whole and never sends", () => {
  const editor = new LineEditor();
  const actions = type(editor, "\x1b[200~one\rtwo\r", "three\x1b[2", "01~");
  assertEquals(actions.filter((action) => action.kind === "submit"), []);
  assertEquals(editor.text, "one\ntwo\nthree");
});

Deno.test("Enter sends; Alt+Enter and a trailing backslash add a line", () => {
  const editor = new LineEditor();
  type(editor, "a", "\x1b\r", "b\\", "\r", "c");
  assertEquals(editor.text, "a\nb\nc");
  assertEquals(type(editor, "\r"), [{ kind: "submit", text: "a\nb\nc" }]);
  assertEquals(editor.text, "");
});

Deno.test("up and down walk the history and keep the draft", () => {
  const editor = new LineEditor(["first", "second"]);
  type(editor, "draft", "\x1b[A");
  assertEquals(editor.text, "second");
  type(editor, "\x1b[A");
  assertEquals(editor.text, "first");
  type(editor, "\x1b[B", "\x1b[B");
  assertEquals(editor.text, "draft");
});

Deno.test("Ctrl-R finds an older entry and Enter sends it", () => {
  const editor = new LineEditor(["make test", "git status", "make lint"]);
  assertEquals(type(editor, "\x12", "stat", "\r"), [
    { kind: "none" },
    { kind: "none" },
    { kind: "submit", text: "git status" },
  ]);
});

Deno.test("Ctrl-C with text interrupts; on an empty input it hints once, then exits; Ctrl-D exits", () => {
  const editor = new LineEditor();
  assertEquals(type(editor, "x", "\x03").at(-1), { kind: "interrupt" });
  editor.clear();
  assertEquals(type(editor, "\x03", "\x03"), [{ kind: "exit-hint" }, { kind: "exit" }]);
  assertEquals(type(new LineEditor(), "\x04"), [{ kind: "exit" }]);
});

Deno.test("a lone Esc waits for flush; an arrow sequence split in two is one key", () => {
  const decoder = new KeyDecoder();
  assertEquals(decoder.feed("\x1b"), []);
  assertEquals(decoder.flush(), [{ kind: "escape" }]);
  assertEquals(decoder.feed("\x1b["), []);
  assertEquals(decoder.feed("A"), [{ kind: "up" }]);
});
