import { assert, assertEquals } from "../../support/assert.ts";
import { preloadWidth, textWidth, truncate, wrapLine } from "../../../src/ui/chat/width.ts";

Deno.test("wide CJK and emoji lines wrap at the right column, never splitting a character", async () => {
  for (const full of [false, true]) {
    if (full) await preloadWidth();
    assertEquals(textWidth("日本語"), 6);
    assertEquals(textWidth("👍"), 2);
    assertEquals(wrapLine("日本語のテキスト", 10), ["日本語のテ", "キスト"]);
    assertEquals(wrapLine("👍👍👍👍👍", 5), ["👍👍", "👍👍", "👍"]);
    // An odd width leaves the last cell empty rather than split a wide character.
    for (const row of wrapLine("漢字かな交じり文の長い行です", 9)) assert(textWidth(row) <= 9, row);
    assertEquals(wrapLine("one two three four", 9), ["one two", "three", "four"]);
  }
  // Grapheme rules come with string-width: a ZWJ sequence and a flag are one wide cell pair.
  assertEquals(textWidth("👩‍💻"), 2);
  assertEquals(textWidth("🇫🇷"), 2);
  assertEquals(textWidth("e\u0301"), 1);
});

Deno.test("colour sequences take no cells, and truncation keeps them closed", () => {
  const red = "\x1b[31mhello world\x1b[39m";
  assertEquals(textWidth(red), 11);
  assertEquals(wrapLine(red, 6).map((row) => textWidth(row)), [5, 5]);
  const cut = truncate(red, 6);
  assertEquals(textWidth(cut), 6);
  assert(cut.endsWith("\x1b[0m…"), JSON.stringify(cut));
  assertEquals(truncate("日本語テキスト", 7), "日本語…");
});

Deno.test("wrapLine with keepWords breaks at spaces and never cuts a word longer than a row", () => {
  assertEquals(
    wrapLine("resume with skiff --resume ses_0123456789abcdef now", 12, true),
    ["resume with", "skiff", "--resume", "ses_0123456789abcdef", "now"],
  );
  // Without it the id is cut to the width.
  assertEquals(wrapLine("see ses_0123456789abcdef", 12), ["see", "ses_01234567", "89abcdef"]);
});

Deno.test("wrapLine with keepWords breaks between items set two spaces apart, keeping each whole", () => {
  const line = "Allow? [y] yes, once  [a] always bash(echo round-2 *) (this session)  " +
    "[h] always bash(echo round-2 *) in this project  [n] no  " +
    "[r] no, and tell the model why  [Esc] stop";
  assertEquals(wrapLine(line, 59, true), [
    "Allow? [y] yes, once",
    "[a] always bash(echo round-2 *) (this session)",
    "[h] always bash(echo round-2 *) in this project  [n] no",
    "[r] no, and tell the model why  [Esc] stop",
  ]);
  // An item longer than a row is cut at its last space that fits, never inside a word.
  const long = "[y] yes  [h] always bash(echo a-long-command-name *) in this very project  [n] no";
  const rows = wrapLine(long, 40, true);
  assertEquals(rows.every((row) => row.length <= 40), true, rows.join("|"));
  assertEquals(rows.join(" ").split(/\s+/), long.split(/\s+/));
});
