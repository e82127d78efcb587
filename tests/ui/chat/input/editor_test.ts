import { assert, assertEquals } from "../../../support/assert.ts";
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

const pasted = (lines: number, tag = "line") =>
  Array.from({ length: lines }, (_, index) => `${tag} ${index + 1} costs $& and $1`).join("\r");

Deno.test("a long paste stands in the input as one label and is sent whole", () => {
  const editor = new LineEditor();
  type(editor, "look at this: ", `\x1b[200~${pasted(300)}\x1b[201~`, " thanks");
  assertEquals(editor.text, "look at this: [pasted 300 lines] thanks");
  assertEquals(editor.hasCollapsedPaste, true);
  const [sent] = type(editor, "\r");
  assert(sent.kind === "submit");
  assertEquals(sent.text, `look at this: ${pasted(300).replaceAll("\r", "\n")} thanks`);
  assertEquals(editor.hasCollapsedPaste, false);
  // A short paste goes in as it is.
  type(editor, `\x1b[200~${pasted(3)}\x1b[201~`);
  assertEquals(editor.text, pasted(3).replaceAll("\r", "\n"));
});

Deno.test("two long pastes of one size get labels of their own; Backspace takes one out whole", () => {
  const editor = new LineEditor();
  type(editor, `\x1b[200~${pasted(20, "a")}\x1b[201~`, " ", `\x1b[200~${pasted(20, "b")}\x1b[201~`);
  assertEquals(editor.text, "[pasted 20 lines] [pasted 20 lines #2]");
  type(editor, "\x7f");
  assertEquals(editor.text, "[pasted 20 lines] ");
  const [sent] = type(editor, "\r");
  assert(sent.kind === "submit");
  assertEquals(sent.text, `${pasted(20, "a").replaceAll("\r", "\n")} `);
});

Deno.test("expanding a collapsed paste puts it in whole, the cursor after what it was after", () => {
  const editor = new LineEditor();
  type(editor, `\x1b[200~${pasted(12)}\x1b[201~`, " end");
  assertEquals(editor.expandPastes(), true);
  const whole = pasted(12).replaceAll("\r", "\n");
  assertEquals(editor.text, `${whole} end`);
  assertEquals(editor.cursor, editor.text.length);
  assertEquals(editor.hasCollapsedPaste, false);
  assertEquals(editor.expandPastes(), false);
  // One very long line is collapsed too, counted in characters.
  const line = "x".repeat(5000);
  const other = new LineEditor();
  type(other, `\x1b[200~${line}\x1b[201~`);
  assertEquals(other.text, "[pasted 5000 characters]");
});
