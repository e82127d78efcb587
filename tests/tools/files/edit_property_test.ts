/**
 * Property test of the edit matcher: random files, a random unique region,
 * an old_string copied from it with the slips models make (indentation,
 * tabs vs spaces, trailing or collapsed whitespace, a typo in a middle line,
 * stray boundary whitespace or blank lines, CRLF, over-escaping, read's
 * line-number gutter, plain quotes for typographic ones). Whatever happens, the
 * edit either lands exactly on that region or fails with no_match /
 * ambiguous_match, and nothing outside the region changes. Seeded, so a
 * failure reproduces.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { applyEdit } from "../../../src/tools/files/match/match.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { ToolError } from "../../../src/tools/tool.ts";
import { makeWorkspace } from "../_context.ts";
import { seededRandom } from "../../support/seeded_random.ts";

const WORDS = [
  "let",
  "x",
  "=",
  "1;",
  "foo(bar)",
  "return",
  "}",
  "{",
  "if",
  "(a",
  "&&",
  "b)",
  "const",
  "y",
  "+",
  "2;",
  "//",
  "note",
  "café",
  "🎉",
  "“q”",
  "items.map(f)",
  "await",
  "done",
]; // deno-fmt-ignore

const squeeze = (text: string) => text.replace(/\s+/g, "");

interface Case {
  file: string;
  lines: string[];
  first: number;
  count: number;
  old: string;
  mutation: string;
}

function makeCase(random: () => number): Case | null {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const unit = pick(["  ", "    ", "\t"]);
  const lines: string[] = [];
  const total = 15 + Math.floor(random() * 60);
  while (lines.length < total) {
    if (lines.length > 4 && random() < 0.08) {
      // Copy an earlier run of lines, sometimes re-indented: near-duplicates invite ambiguity.
      const from = Math.floor(random() * (lines.length - 3));
      const shift = random() < 0.5 ? "" : unit;
      lines.push(...lines.slice(from, from + 3).map((line) => (line ? shift + line : line)));
      continue;
    }
    if (random() < 0.1) {
      lines.push("");
      continue;
    }
    const depth = Math.floor(random() * 4);
    const words = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(WORDS));
    lines.push(unit.repeat(depth) + words.join(random() < 0.2 ? "  " : " "));
  }
  const file = lines.join("\n") + "\n";
  const count = 1 + Math.floor(random() * 5);
  const first = Math.floor(random() * (lines.length - count));
  const regionLines = lines.slice(first, first + count);
  const region = regionLines.join("\n");
  if (region.trim() === "" || file.indexOf(region) !== file.lastIndexOf(region)) return null;
  // A region that recurs elsewhere up to whitespace is ambiguous to any reader once a
  // whitespace slip is made: no matcher can know which was meant, so skip it.
  const squeezedFile = squeeze(file);
  const squeezedRegion = squeeze(region);
  if (squeezedFile.indexOf(squeezedRegion) !== squeezedFile.lastIndexOf(squeezedRegion)) {
    return null;
  }

  const mutation = pick([
    "none",
    "strip-indent",
    "add-indent",
    "tabs-to-spaces",
    "spaces-to-tab",
    "trailing-space",
    "collapse-spaces",
    "typo",
    "boundary",
    "crlf",
    "escaped",
    "gutter",
    "plain-quotes",
    "blank-lines",
  ]);
  let old = regionLines;
  switch (mutation) {
    case "strip-indent":
      old = old.map((line) => line.trimStart());
      break;
    case "add-indent":
      old = old.map((line) => (line ? "  " + line : line));
      break;
    case "tabs-to-spaces":
      old = old.map((line) => line.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length)));
      break;
    case "spaces-to-tab":
      old = old.map((line) =>
        line.replace(/^ +/, (spaces) => "\t".repeat(Math.ceil(spaces.length / 4)))
      );
      break;
    case "trailing-space":
      old = old.map((line) => (random() < 0.5 ? line + "  " : line));
      break;
    case "collapse-spaces":
      old = old.map((line) => line.replace(/(\S) {2,}/g, "$1 "));
      break;
    case "typo": {
      if (count < 3) return null;
      const k = 1 + Math.floor(random() * (count - 2));
      const line = old[k];
      const positions = [...line].map((c, i) => (/\s/.test(c) ? -1 : i)).filter((i) => i >= 0);
      if (positions.length < 4) return null;
      const at = pick(positions);
      old = [...old];
      old[k] = line.slice(0, at) + (line[at] === "Z" ? "Q" : "Z") + line.slice(at + 1);
      break;
    }
  }
  // A region with blank lines at its ends cannot be told from the blank lines put around it.
  if (mutation === "blank-lines" && (old[0].trim() === "" || old[old.length - 1].trim() === "")) {
    return null;
  }
  if (mutation === "gutter") {
    old = old.map((line, i) => `${String(first + 1 + i).padStart(6)}\t${line}`);
  }
  if (mutation === "plain-quotes") old = old.map((line) => line.replace(/[“”]/g, '"'));
  let text = old.join("\n");
  if (mutation === "boundary") text = "\n" + text + " ";
  if (mutation === "blank-lines") text = "\n\n" + text + "\n\n";
  if (mutation === "crlf") text = text.replaceAll("\n", "\r\n");
  if (mutation === "escaped") text = text.replaceAll("\n", "\\n").replaceAll("\t", "\\t");
  return { file, lines, first, count, old: text, mutation };
}

const leadingLength = (line: string) => line.length - line.trimStart().length;
const trailingLength = (line: string) => line.length - line.trimEnd().length;

/**
 * True when `result` is `file` with only the region replaced: the region may
 * shrink by its own leading/trailing whitespace or grow by one adjacent line
 * break, and what was put in is new_string up to whitespace (re-indentation).
 */
function landedExactly(c: Case, result: string, replacement: string): boolean {
  let regionStart = 0;
  for (let i = 0; i < c.first; i++) regionStart += c.lines[i].length + 1;
  const last = c.lines[c.first + c.count - 1];
  let regionEnd = regionStart;
  for (let i = c.first; i < c.first + c.count; i++) regionEnd += c.lines[i].length + 1;
  regionEnd -= 1;
  // The match may also take in whitespace next to the region, up to one line break,
  // when old_string started or ended with some: that is still the region.
  const starts: number[] = [];
  for (let a = regionStart + leadingLength(c.lines[c.first]); a >= 0; a--) {
    const gap = c.file.slice(a, regionStart);
    if (/\S/.test(gap) || gap.split("\n").length > 2) break;
    starts.push(a);
  }
  const ends: number[] = [];
  for (let b = regionEnd - trailingLength(last); b <= c.file.length; b++) {
    const gap = c.file.slice(regionEnd, b);
    if (/\S/.test(gap) || gap.split("\n").length > 2) break;
    ends.push(b);
  }
  for (const a of starts) {
    if (!result.startsWith(c.file.slice(0, a))) continue;
    for (const b of ends) {
      const suffix = c.file.slice(b);
      if (!result.endsWith(suffix) || result.length - suffix.length < a) continue;
      if (squeeze(result.slice(a, result.length - suffix.length)) === squeeze(replacement)) {
        return true;
      }
    }
  }
  return false;
}

Deno.test("property: a fuzzy edit lands exactly on the intended region or fails", () => {
  const random = seededRandom(20261129);
  const tally: Record<string, number> = {};
  let cases = 0;
  let landed = 0;
  while (cases < 400) {
    const c = makeCase(random);
    if (!c) continue;
    cases++;
    const core = random() < 0.5 ? "§NEW§" : "§NEW§\n  §MORE§";
    // Blank lines around old_string come around new_string too, as a model copies them.
    const replacement = c.mutation === "blank-lines" ? `\n\n${core}\n\n` : core;
    try {
      const outcome = applyEdit(c.file, { old_string: c.old, new_string: replacement }, "p.ts");
      assert(
        landedExactly(c, outcome.text, replacement),
        `case ${cases} (${c.mutation}, ${outcome.replacer}) landed elsewhere.\n` +
          `old_string: ${JSON.stringify(c.old)}\nlines ${c.first + 1}-${c.first + c.count}\n` +
          `file:\n${c.file}\nresult:\n${outcome.text}`,
      );
      if (c.mutation === "blank-lines") {
        // The file's own blank lines around the region stay as they were: no line gained or lost.
        const breaks = (text: string) => text.split("\n").length - 1;
        assertEquals(
          breaks(outcome.text),
          breaks(c.file) - (c.count - 1) + breaks(core),
          `case ${cases} (blank-lines, ${outcome.replacer}) added or dropped blank lines.\n` +
            `old_string: ${JSON.stringify(c.old)}\nfile:\n${c.file}\nresult:\n${outcome.text}`,
        );
      }
      landed++;
      tally[`${c.mutation}:${outcome.replacer}`] =
        (tally[`${c.mutation}:${outcome.replacer}`] ?? 0) + 1;
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      assert(
        error.code === "no_match" || error.code === "ambiguous_match",
        `case ${cases} (${c.mutation}) failed with ${error.code}: ${error.message}`,
      );
      assert(c.mutation !== "none", `an exact unique old_string must never fail: ${error.message}`);
      tally[`${c.mutation}:${error.code}`] = (tally[`${c.mutation}:${error.code}`] ?? 0) + 1;
    }
  }
  // Guard against a vacuous pass: most slips are recoverable and must be recovered.
  assert(landed > cases * 0.6, `only ${landed} of ${cases} edits landed: ${JSON.stringify(tally)}`);
});

Deno.test("property on disk: CRLF files with a BOM change only inside the region", async () => {
  await using ws = await makeWorkspace();
  const random = seededRandom(7);
  let runs = 0;
  while (runs < 60) {
    const c = makeCase(random);
    if (!c) continue;
    runs++;
    const bytes = new TextEncoder().encode("\uFEFF" + c.file.replaceAll("\n", "\r\n"));
    await Deno.writeFile(ws.at("p.txt"), bytes);
    await ws.run(readTool, { file_path: "p.txt" });
    let expected: string;
    try {
      expected = applyEdit(c.file, { old_string: c.old, new_string: "§NEW§" }, "p.txt").text;
    } catch {
      expected = c.file;
    }
    try {
      await ws.run(editTool, { file_path: "p.txt", old_string: c.old, new_string: "§NEW§" });
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
    }
    const raw = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
      await Deno.readFile(ws.at("p.txt")),
    );
    assertEquals(raw, "\uFEFF" + expected.replaceAll("\n", "\r\n"), `case ${runs} (${c.mutation})`);
  }
});
