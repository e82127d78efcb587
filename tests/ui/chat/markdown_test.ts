import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { loadMarkdown, MarkdownStream, renderMarkdown } from "../../../src/ui/chat/markdown.ts";
import { highlight, loadHighlighter } from "../../../src/ui/chat/highlight.ts";
import { makeStyle } from "../../../src/ui/chat/style.ts";
import { stripAnsi } from "./_terminal.ts";

const ANSWER = [
  "# Plan",
  "",
  "Some **bold** text, *slanted*, `inline code` and a [link](https://example.org/docs).",
  "",
  "## Steps",
  "",
  "- first item with a long enough sentence to wrap around the narrow column we use",
  "- second item",
  "  - nested",
  "",
  "1. one",
  "2. two",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "```",
  "",
  "> quoted text",
  "",
  "Done.",
  "",
].join("\n");

function streamed(
  text: string,
  chunk: number,
  color: boolean,
  lex: Parameters<typeof renderMarkdown>[1],
) {
  const stream = new MarkdownStream(lex, { columns: 40, style: makeStyle(color) });
  const lines: string[] = [];
  for (let at = 0; at < text.length; at += chunk) {
    lines.push(...stream.push(text.slice(at, at + chunk)).done);
  }
  lines.push(...stream.finish());
  return lines;
}

Deno.test("markdown streamed in chunks of any size renders exactly as all at once", async () => {
  const lex = await loadMarkdown();
  for (const color of [false, true]) {
    const whole = renderMarkdown(ANSWER, lex, { columns: 40, style: makeStyle(color) });
    for (const chunk of [1, 2, 3, 7, 16, 64, ANSWER.length]) {
      assertEquals(
        streamed(ANSWER, chunk, color, lex),
        whole,
        `chunks of ${chunk}, colour ${color}`,
      );
    }
  }
});

Deno.test("markdown: headings, lists, bold, inline code, fenced code and links as terminal text", async () => {
  const lex = await loadMarkdown();
  const plain = renderMarkdown(ANSWER, lex, { columns: 40, style: makeStyle(false) });
  const text = plain.join("\n");
  assert(!text.includes("\x1b"), "plain style writes no escape sequence");
  // Without colour the marks stay, so emphasis and code still read as such.
  assertEquals(plain[0], "# Plan");
  assertStringIncludes(text, "Some **bold** text, _slanted_, `inline\ncode`");
  assertStringIncludes(text, "link\n(https://example.org/docs)");
  assertStringIncludes(text, "• first item with a long enough");
  assertStringIncludes(text, "  - nested".replace("-", "•"));
  assertStringIncludes(text, "1. one\n2. two");
  assertStringIncludes(text, "```ts\nconst answer: number = 42; // the answer\n```");
  assertStringIncludes(text, "│ quoted text");
  // Wrapped list items keep their indent under the bullet, and no row passes 40 cells.
  const wrapped = plain.findIndex((line) => line.startsWith("• first"));
  assert(plain[wrapped + 1].startsWith("  "), plain[wrapped + 1]);
  for (const line of plain.filter((line) => !line.startsWith("const"))) {
    assert(line.length <= 40, line);
  }

  const coloured = renderMarkdown(ANSWER, lex, { columns: 40, style: makeStyle(true) }).join("\n");
  assertStringIncludes(coloured, "\x1b[1mbold\x1b[22m");
  assertStringIncludes(coloured, "\x1b[36minline code\x1b[39m");
  assertStringIncludes(coloured, "\x1b[4mlink\x1b[24m");
  assertStringIncludes(coloured, "\x1b[1m\x1b[4mPlan");
  // With colour the style carries the emphasis: no marks.
  assertStringIncludes(stripAnsi(coloured), "Some bold text, slanted, inline code");
});

Deno.test("fenced code gets syntax colour once highlight.js has loaded, and stays plain without colour", async () => {
  const lex = await loadMarkdown();
  await loadHighlighter();
  const source = '```ts\nconst greeting = "hi <there>"; // say it\n```\n';
  const coloured = renderMarkdown(source, lex, { columns: 80, style: makeStyle(true), highlight })
    .join("\n");
  assertStringIncludes(coloured, "\x1b[35mconst\x1b[0m");
  assertStringIncludes(coloured, '\x1b[32m"hi <there>"\x1b[0m');
  assertStringIncludes(coloured, "\x1b[2m// say it\x1b[0m");
  assertEquals(stripAnsi(coloured), '```ts\nconst greeting = "hi <there>"; // say it\n```');
  const plain = renderMarkdown(source, lex, { columns: 80, style: makeStyle(false), highlight });
  assert(!plain.join("\n").includes("\x1b"));
  // An unknown language is shown as written.
  assertEquals(highlight("x = 1", "no-such-language"), undefined);
});

Deno.test("a model's escape sequences in the answer and in code are shown, not obeyed", async () => {
  const lex = await loadMarkdown();
  const source = "Clear \x1b[2J now\r and \u202eevil\n\n```sh\nprintf '\x1b]0;title\x07'\n```\n";
  for (const color of [false, true]) {
    const text = renderMarkdown(source, lex, { columns: 80, style: makeStyle(color), highlight })
      .join("\n");
    assert(!text.includes("\x1b[2J") && !text.includes("\x1b]0") && !text.includes("\r"));
    assert(!text.includes("\u202e") && !text.includes("\x07"));
    // marked reads a lone carriage return as a line break: it cannot overwrite the line.
    assertStringIncludes(stripAnsi(text), "Clear \\x1b[2J now\n and \\u202eevil");
    assertStringIncludes(stripAnsi(text), "printf '\\x1b]0;title\\x07'");
  }
});

const TABLE = [
  "| Name | Role | Notes |",
  "| :--- | :---: | ---: |",
  "| ls | lists | short |",
  "| ripgrep | searches files by regular expression, fast, respecting ignore files | 12 |",
  "",
].join("\n");

Deno.test("a table is drawn aligned, with its header rule, its cells wrapped inside their columns", async () => {
  const lex = await loadMarkdown();
  for (const columns of [99, 79, 59]) {
    const lines = renderMarkdown(TABLE, lex, { columns, style: makeStyle(false) });
    const bars = lines.map((line) => [...line.matchAll(/[│┼]/g)].map((match) => match.index));
    // Every row puts its column separators at the same cells, the rule included.
    for (const row of bars) assertEquals(row, bars[0], lines.join("\n"));
    assertEquals(bars[0].length, 2);
    assert(lines[1].startsWith("────") && lines[1].includes("─┼─"), lines[1]);
    assert(lines[0].startsWith("Name") && lines[0].includes("Role"), lines[0]);
    for (const line of lines) assert(line.length <= columns, `${columns}: ${line}`);
    // Right-aligned column: its value ends where the column does.
    const short = lines.find((line) => line.startsWith("ls "))!;
    assert(short.endsWith("short"), short);
    // The long cell wraps inside its column at spaces: its words all there, in order.
    const middle = lines.slice(2).map((line) => line.split("│")[1]?.trim() ?? "").join(" ");
    assertStringIncludes(
      middle.replace(/\s+/g, " "),
      "searches files by regular expression, fast, respecting ignore files",
    );
  }
  const coloured = renderMarkdown(TABLE, lex, { columns: 59, style: makeStyle(true) });
  assertEquals(
    coloured.map(stripAnsi),
    renderMarkdown(TABLE, lex, { columns: 59, style: makeStyle(false) }),
  );
  assertStringIncludes(coloured[0], "\x1b[1mName");
});

Deno.test("a table with more columns than fit is drawn row by row, each cell under its header's name", async () => {
  const lex = await loadMarkdown();
  const header = Array.from({ length: 8 }, (_, index) => `column${index}`);
  const source = `| ${header.join(" | ")} |\n|${" --- |".repeat(8)}\n| ${
    header.map((_, index) => `value number ${index}`).join(" | ")
  } |\n`;
  const lines = renderMarkdown(source, lex, { columns: 40, style: makeStyle(false) });
  assertEquals(lines[0], "column0: value number 0");
  assertEquals(lines[7], "column7: value number 7");
  for (const line of lines) assert(line.length <= 40, line);
});
