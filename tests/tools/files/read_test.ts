/**
 * The read tool: numbered windows and how to continue, clamped long lines,
 * binary refusal, image descriptions, directory listings, not_found hints,
 * and the ledger entry that later allows an edit.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../support/assert.ts";
import { READ_MAX_LINE_CHARS, readTool } from "../../../src/tools/files/read.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import { writeTool } from "../../../src/tools/files/write.ts";
import { hashContent } from "../../../src/tools/files/file_ledger.ts";
import { makeWorkspace } from "../_context.ts";

Deno.test("read numbers lines like cat -n and says the file ended", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "alpha\n\tbeta\ngamma\n");
  const { output } = await ws.run(readTool, { file_path: "a.txt" });
  assertEquals(output, "     1\talpha\n     2\t\tbeta\n     3\tgamma\n\n(end of file, 3 lines)");
});

Deno.test("read windows a long file at 2000 lines and names the offset to continue", async () => {
  await using ws = await makeWorkspace();
  const lines = Array.from({ length: 2500 }, (_, i) => `${i + 1}`);
  await ws.write("long.txt", lines.join("\n") + "\n");
  const first = await ws.run(readTool, { file_path: "long.txt" });
  const shown = first.output.split("\n").filter((line) => /^\s+\d+\t/.test(line));
  assertEquals(shown.length, 2000);
  assertStringIncludes(first.output, "500 more — call read with offset=2001 to continue");
  const rest = await ws.run(readTool, { file_path: "long.txt", offset: 2001 });
  assert(rest.output.startsWith("  2001\t2001\n"));
  assertStringIncludes(rest.output, "lines 2001-2500 of 2500; end of file");
});

Deno.test("read honours offset and limit", async () => {
  await using ws = await makeWorkspace();
  await ws.write("n.txt", "a\nb\nc\nd\ne\n");
  const { output } = await ws.run(readTool, { file_path: "n.txt", offset: 2, limit: 2 });
  assertEquals(
    output,
    "     2\tb\n     3\tc\n\n(lines 2-3 of 5; 2 more — call read with offset=4 to continue)",
  );
  const past = await ws.fail(readTool, { file_path: "n.txt", offset: 9 });
  assertEquals(past.code, "bad_input");
  assertStringIncludes(past.message, "has 5 lines");
});

Deno.test("read stops a window early rather than overflow the output cap", async () => {
  await using ws = await makeWorkspace();
  const wide = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(1000, "x"));
  await ws.write("wide.txt", wide.join("\n") + "\n");
  const { output } = await ws.run(readTool, { file_path: "wide.txt" });
  assert(output.length < 30_000, `output is ${output.length} chars`);
  assertMatch(output, /call read with offset=\d+ to continue/);
});

Deno.test("read clamps a very long line and says how much was cut", async () => {
  await using ws = await makeWorkspace();
  await ws.write("min.js", "x".repeat(READ_MAX_LINE_CHARS + 500) + "\n");
  const { output } = await ws.run(readTool, { file_path: "min.js" });
  assertStringIncludes(output, "[line cut: 500 more characters]");
});

Deno.test("read records the whole file in the ledger, even for a window", async () => {
  await using ws = await makeWorkspace();
  const content = Array.from({ length: 50 }, (_, i) => `l${i}`).join("\n") + "\n";
  await ws.write("w.txt", content);
  await ws.run(readTool, { file_path: "w.txt", offset: 10, limit: 5 });
  const entry = ws.ctx.files.entries().find(([file]) => file === ws.at("w.txt"));
  assertEquals(entry?.[1], hashContent(new TextEncoder().encode(content)));
});

Deno.test("read shows CRLF files without the carriage returns and a BOM file without the mark", async () => {
  await using ws = await makeWorkspace();
  await ws.write("c.txt", "\uFEFFone\r\ntwo\r\n");
  const { output } = await ws.run(readTool, { file_path: "c.txt" });
  assertEquals(output, "     1\tone\n     2\ttwo\n\n(end of file, 2 lines)");
});

Deno.test("read refuses a binary file with a clear message", async () => {
  await using ws = await makeWorkspace();
  await ws.write("prog.bin", new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
  const error = await ws.fail(readTool, { file_path: "prog.bin" });
  assertEquals(error.code, "binary_file");
  assertStringIncludes(error.message, "binary file of 8 bytes;");
  assert(error.hint);
});

Deno.test("read describes images: format, size and dimensions from the header", async () => {
  await using ws = await makeWorkspace();
  const png = new Uint8Array(33);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(png.buffer).setUint32(16, 640);
  new DataView(png.buffer).setUint32(20, 480);
  await ws.write("shot.png", png);
  const gif = new Uint8Array([...new TextEncoder().encode("GIF89a"), 32, 0, 16, 0, 0, 0, 0]);
  await ws.write("anim.gif", gif);
  const jpeg = new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    4,
    0,
    0,
    0xff,
    0xc0,
    0,
    11,
    8,
    0,
    200,
    1,
    44,
    3,
    0,
    0,
    0,
  ]);
  await ws.write("photo.jpg", jpeg);

  const a = await ws.run(readTool, { file_path: "shot.png" });
  assertEquals(a.output, "shot.png is a PNG image (image/png), 33 bytes, 640×480 pixels.");
  const b = await ws.run(readTool, { file_path: "anim.gif" });
  assertStringIncludes(b.output, "GIF image (image/gif), 13 bytes, 32×16 pixels");
  const c = await ws.run(readTool, { file_path: "photo.jpg" });
  assertStringIncludes(c.output, "JPEG image (image/jpeg), 21 bytes, 300×200 pixels");
});

Deno.test("read lists a directory, folders with a trailing slash", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/b.ts", "");
  await ws.write("src/a.ts", "");
  await ws.write("src/lib/c.ts", "");
  const { output } = await ws.run(readTool, { file_path: "src" });
  assertEquals(output, "src/ is a directory with 3 entries:\na.ts\nb.ts\nlib/");
});

Deno.test("read of a missing file suggests similar names in that folder", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/config.ts", "");
  await ws.write("src/config_test.ts", "");
  await ws.write("src/unrelated.md", "");
  const error = await ws.fail(readTool, { file_path: "src/confg.ts" });
  assertEquals(error.code, "not_found");
  assertStringIncludes(error.hint ?? "", "src/config.ts");
  assert(!(error.hint ?? "").includes("unrelated"));
  const deeper = await ws.fail(readTool, { file_path: "nope/x.ts" });
  assertStringIncludes(deeper.message, "neither does its folder");
});

Deno.test("read of an empty file says so", async () => {
  await using ws = await makeWorkspace();
  await ws.write("empty.txt", "");
  const { output } = await ws.run(readTool, { file_path: "empty.txt" });
  assertStringIncludes(output, "is empty");
});

Deno.test("declare: read key, relative pattern, real path; outside the workspace is absolute", async () => {
  await using ws = await makeWorkspace();
  const inside = await readTool.declare({ file_path: "./src/../a.txt" }, ws.ctx);
  assertEquals(inside, { key: "read", patterns: ["a.txt"], reads: [ws.at("a.txt")] });
  const outside = await readTool.declare({ file_path: "/etc/hostname" }, ws.ctx);
  assertEquals(outside.patterns, ["/etc/hostname"]);
});

Deno.test("read refuses a device instead of reading forever", async () => {
  await using ws = await makeWorkspace();
  const error = await ws.fail(readTool, { file_path: "/dev/zero" });
  assertEquals(error.code, "bad_input");
  assertStringIncludes(error.message, "not a regular file");
});

Deno.test("read describes WebP (VP8X) and BMP images with their dimensions", async () => {
  await using ws = await makeWorkspace();
  const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
  const webp = new Uint8Array(30);
  webp.set([...ascii("RIFF"), 22, 0, 0, 0, ...ascii("WEBP"), ...ascii("VP8X")]);
  webp.set([0x3f, 0x01, 0x00], 24); // width - 1 = 319
  webp.set([0xef, 0x00, 0x00], 27); // height - 1 = 239
  await ws.write("pic.webp", webp);
  const bmp = new Uint8Array(54);
  bmp.set(ascii("BM"));
  new DataView(bmp.buffer).setInt32(18, 16, true);
  new DataView(bmp.buffer).setInt32(22, -9, true); // top-down bitmaps store a negative height
  await ws.write("icon.bmp", bmp);
  assertStringIncludes(
    (await ws.run(readTool, { file_path: "pic.webp" })).output,
    "WebP image (image/webp), 30 bytes, 320×240 pixels",
  );
  assertStringIncludes(
    (await ws.run(readTool, { file_path: "icon.bmp" })).output,
    "BMP image (image/bmp), 54 bytes, 16×9 pixels",
  );
});

Deno.test("a one-line file is counted as 1 line, not 1 lines", async () => {
  await using ws = await makeWorkspace();
  await ws.write("one.txt", "only");
  const result = await ws.run(readTool, { file_path: "one.txt" });
  assertStringIncludes(result.output, "(end of file, 1 line)");
  const error = await ws.fail(readTool, { file_path: "one.txt", offset: 3 });
  assertStringIncludes(error.message, "which has 1 line.");
});

Deno.test("a cut line comes with a command that shows more of it, and the command works", async () => {
  await using ws = await makeWorkspace();
  const long = "a".repeat(READ_MAX_LINE_CHARS) + "THE REST";
  await ws.write("it's min.js", `short\n${long}\n${long}\n`);
  const { output } = await ws.run(readTool, { file_path: "it's min.js" });
  const command = /run bash: (.+)\)$/.exec(output)?.[1];
  assert(command, `no command for the cut line in:\n${output.slice(-300)}`);
  assertStringIncludes(command, "sed -n '2p'");
  const shown = await new Deno.Command("sh", { args: ["-c", command], cwd: ws.root }).output();
  assertEquals(new TextDecoder().decode(shown.stdout), "THE REST\n");
});

Deno.test("a file over 50 MiB is too_large, with its size and a way on", async () => {
  await using ws = await makeWorkspace();
  await ws.write("huge.log", "");
  await Deno.truncate(ws.at("huge.log"), 51 * 1024 * 1024);
  const error = await ws.fail(readTool, { file_path: "huge.log" });
  assertEquals(error.code, "too_large");
  assertEquals(
    error.message,
    "huge.log is 51.0 MiB (53477376 bytes), more than read handles (at most 50 MiB).",
  );
  assertStringIncludes(error.hint ?? "", "grep");
});

/** `text` as UTF-16 bytes, little- or big-endian, with or without a BOM. */
function utf16(text: string, littleEndian: boolean, bom: boolean): Uint8Array {
  const full = bom ? `\uFEFF${text}` : text;
  const bytes = new Uint8Array(full.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < full.length; i++) view.setUint16(i * 2, full.charCodeAt(i), littleEndian);
  return bytes;
}

Deno.test("read decodes UTF-16 (by BOM, or by its NUL bytes) and edit writes it back as UTF-16", async () => {
  await using ws = await makeWorkspace();
  const cases = [
    { name: "le-bom.txt", littleEndian: true, bom: true, label: "UTF-16LE" },
    { name: "be-bom.txt", littleEndian: false, bom: true, label: "UTF-16BE" },
    { name: "le-plain.txt", littleEndian: true, bom: false, label: "UTF-16LE" },
  ];
  for (const { name, littleEndian, bom, label } of cases) {
    await ws.write(name, utf16("Résumé\r\nline two\r\n", littleEndian, bom));
    const { output, metadata } = await ws.run(readTool, { file_path: name });
    assertStringIncludes(output, "     1\tRésumé\n     2\tline two\n");
    assertStringIncludes(output, `decoded from ${label}`);
    assertEquals(metadata?.encoding, label.toLowerCase());

    await ws.run(editTool, { file_path: name, old_string: "two", new_string: "deux → 2" });
    assertEquals(
      await Deno.readFile(ws.at(name)),
      utf16("Résumé\r\nline deux → 2\r\n", littleEndian, bom),
      `${name} keeps its encoding, BOM and CRLF endings`,
    );
  }
});

Deno.test("read decodes Latin-1 text that is not UTF-8, and edit and write keep its bytes", async () => {
  await using ws = await makeWorkspace();
  // "café crème\n€5\n" in Windows-1252: é = 0xE9, è = 0xE8, € = 0x80.
  const latin1 = Uint8Array.from([
    ..."caf".split("").map((c) => c.charCodeAt(0)),
    0xe9,
    0x20,
    ..."cr".split("").map((c) => c.charCodeAt(0)),
    0xe8,
    ..."me\n".split("").map((c) => c.charCodeAt(0)),
    0x80,
    ..."5\n".split("").map((c) => c.charCodeAt(0)),
  ]);
  await ws.write("menu.txt", latin1);
  const { output, metadata } = await ws.run(readTool, { file_path: "menu.txt" });
  assertStringIncludes(output, "     1\tcafé crème\n     2\t€5\n");
  assertStringIncludes(output, "decoded from Windows-1252 (Latin-1)");
  assertEquals(metadata?.encoding, "windows-1252");

  await ws.run(editTool, { file_path: "menu.txt", old_string: "€5", new_string: "€6 à emporter" });
  const after = await Deno.readFile(ws.at("menu.txt"));
  assertEquals(after.subarray(0, latin1.length - 2), latin1.subarray(0, latin1.length - 2));
  assertEquals([...after.subarray(latin1.length - 2, latin1.length + 1)], [0x36, 0x20, 0xe0]);

  // A character Latin-1 lacks is refused with a way on; the file is left as it was.
  const refused = await ws.fail(editTool, {
    file_path: "menu.txt",
    old_string: "crème",
    new_string: "crème ✓",
  });
  assertEquals(refused.code, "bad_input");
  assertStringIncludes(refused.message, "Windows-1252");
  assertStringIncludes(refused.message, "U+2713");
  assertEquals(await Deno.readFile(ws.at("menu.txt")), after);

  await ws.run(writeTool, { file_path: "menu.txt", content: "tout neuf: é\n" });
  assertEquals([...await Deno.readFile(ws.at("menu.txt"))].slice(-2), [0xe9, 0x0a]);
});

Deno.test("read still refuses binary: NUL bytes without UTF-16's pattern, or mostly controls", async () => {
  await using ws = await makeWorkspace();
  const random = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251 + 1);
  random[100] = 0;
  await ws.write("noise.bin", random);
  assertEquals((await ws.fail(readTool, { file_path: "noise.bin" })).code, "binary_file");
  const controls = Uint8Array.from(
    { length: 200 },
    (_, i) => (i % 3 === 0 ? 0x41 : 0x01 + (i % 20)),
  );
  await ws.write("controls.bin", controls);
  assertEquals((await ws.fail(readTool, { file_path: "controls.bin" })).code, "binary_file");
});

Deno.test("read gives the same lines for a file read at once and one read through the thread pool", async () => {
  await using ws = await makeWorkspace();
  // Either side of the size read at once (256 KiB): both are read whole and windowed alike.
  const line = "x".repeat(99);
  for (const count of [2_000, 3_000]) {
    await ws.write(`f${count}.txt`, `${line}\n`.repeat(count));
    const { output } = await ws.run(readTool, { file_path: `f${count}.txt`, offset: 1990 });
    assertStringIncludes(output, `  1990\t${line}\n`);
    assertStringIncludes(output, count === 2_000 ? "end of file" : `of ${count}`);
    assert(!output.includes("2000 more"), output.slice(-200));
  }
});
