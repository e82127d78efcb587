/**
 * TERM=dumb: the input echoed by appending only — typing, Backspace, a sent
 * message, a recalled one — with no escape sequence, and control characters
 * shown rather than obeyed.
 */
import { assertEquals } from "../../../support/assert.ts";
import { AppendEcho } from "../../../../src/ui/chat/input/append_echo.ts";

Deno.test("append echo: grows, backs up with \\b, starts a new line when sent or replaced", () => {
  let written = "";
  const echo = new AppendEcho((text) => (written += text));
  echo.show("h");
  echo.show("hel");
  echo.show("hell");
  echo.show("hel");
  assertEquals(written, "\r\n> hell\b \b");
  written = "";
  echo.show("");
  assertEquals(written, "\r\n", "sent: the next message starts on a new line");
  written = "";
  echo.show("recalled from history");
  echo.show("recalled from hist");
  echo.show("other");
  assertEquals(written, "\r\n> recalled from history\b \b\b \b\b \b\r\n> other");
  assertNoEscape(written);
});

Deno.test("append echo: a control character typed or pasted is shown, not obeyed", () => {
  let written = "";
  const echo = new AppendEcho((text) => (written += text));
  echo.show("a\x1b[2Jb\nline two");
  assertNoEscape(written);
  assertEquals(written.includes("\\x1b[2J"), true, written);
  assertEquals(written.endsWith("\r\nline two"), true, JSON.stringify(written));
});

function assertNoEscape(text: string): void {
  assertEquals(text.includes("\x1b"), false, JSON.stringify(text));
}
