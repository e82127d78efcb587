/**
 * Shared truncation: short text passes untouched; long text keeps head and
 * tail with a notice naming the spill file, which holds the whole text; the
 * streaming spool does the same with bounded memory.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { OutputSpool, truncateOutput } from "../../src/tools/truncate.ts";

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "skiff-truncate-" });
}

Deno.test("text within the limit comes back unchanged and nothing is written", async () => {
  const dataDir = await tempDir();
  const text = "x".repeat(30_000);
  assertEquals(await truncateOutput(text, { callId: "c1", sessionId: "s1", dataDir }), text);
  assertEquals(await Deno.stat(`${dataDir}/tool-output`).catch(() => null), null);
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("long text keeps head and tail, names the spill file, and the file holds everything", async () => {
  const dataDir = await tempDir();
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
  const text = lines.join("\n");
  const out = await truncateOutput(text, {
    callId: "call/42",
    sessionId: "ses_1",
    dataDir,
    limit: 1_000,
  });
  assert(out.length <= 1_000, `output is ${out.length} characters`);
  assert(out.startsWith("line 0\nline 1\n"));
  assert(out.endsWith("line 19999"));
  const file = `${dataDir}/tool-output/ses_1/call_42.txt`;
  assertMatch(out, /… \[\d+ characters truncated; full output: .*call_42\.txt\] …/);
  assertStringIncludes(out, file);
  assertEquals(await Deno.readTextFile(file), text);
  // The history text is itself within the limit, so truncating it again changes nothing.
  assertEquals(
    await truncateOutput(out, { callId: "call/42", sessionId: "ses_1", dataDir, limit: 1_000 }),
    out,
  );
  assertEquals(await Deno.readTextFile(file), text);
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("the notice counts exactly the characters left out", async () => {
  const dataDir = await tempDir();
  const text = "a".repeat(5_000) + "b".repeat(5_000);
  const out = await truncateOutput(text, { callId: "n", sessionId: "s", dataDir, limit: 2_000 });
  const omitted = Number(/\[(\d+) characters truncated/.exec(out)![1]);
  const head = out.slice(0, out.indexOf("\n… ["));
  const tail = out.slice(out.indexOf("] …\n") + 4);
  assertEquals(head.length + tail.length + omitted, text.length);
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("the spool keeps memory to head and tail and spills the whole stream", async () => {
  const dataDir = await tempDir();
  const spool = new OutputSpool({ callId: "stream", sessionId: "s", dataDir, limit: 1_000 });
  let all = "";
  for (let i = 0; i < 5_000; i++) {
    const chunk = `chunk ${i}\n`;
    all += chunk;
    spool.append(chunk);
  }
  const out = spool.finish();
  assert(spool.spilled);
  assert(out.length <= 1_000);
  assert(out.startsWith("chunk 0\n"));
  assert(out.endsWith("chunk 4999\n"));
  assertEquals(await Deno.readTextFile(spool.file), all);
  await Deno.remove(dataDir, { recursive: true });
});

/** Kept lines of a truncated count-up output: each a whole number printed, in order, no gap. */
function assertWholeLines(out: string, total: number, lines: number): void {
  const head = out.slice(0, out.indexOf("… ["));
  const tail = out.slice(out.indexOf("] …\n") + 4);
  const numbers = (part: string) => part.split("\n").filter((line) => line !== "").map(Number);
  const first = numbers(head);
  assertEquals(first, first.map((_, i) => i));
  const last = numbers(tail);
  assertEquals(last, last.map((_, i) => lines - last.length + i));
  const omitted = Number(/\[(\d+) characters truncated/.exec(out)![1]);
  assertEquals(head.length + tail.length + omitted, total);
}

Deno.test("head and tail end on whole lines, so no fragment passes for a line", async () => {
  const dataDir = await tempDir();
  const text = Array.from({ length: 20_000 }, (_, i) => `${i}`).join("\n") + "\n";
  const out = await truncateOutput(text, {
    callId: "lines",
    sessionId: "s",
    dataDir,
    limit: 1_000,
  });
  assertWholeLines(out, text.length, 20_000);

  const spool = new OutputSpool({ callId: "spool", sessionId: "s", dataDir, limit: 1_000 });
  for (let i = 0; i < 20_000; i++) spool.append(`${i}\n`);
  assertWholeLines(spool.finish(), text.length, 20_000);
  // A chunk cut in the middle of lines still yields whole lines.
  const pieces = new OutputSpool({ callId: "pieces", sessionId: "s", dataDir, limit: 1_000 });
  for (let at = 0; at < text.length; at += 7) pieces.append(text.slice(at, at + 7));
  assertWholeLines(pieces.finish(), text.length, 20_000);
  await Deno.remove(dataDir, { recursive: true });
});

Deno.test("a reused call id, or another session's, never overwrites a spill file", async () => {
  const dataDir = await tempDir();
  const text = (mark: string) => `${mark}\n`.repeat(1_000);
  const first = await truncateOutput(text("first"), {
    callId: "call_1",
    sessionId: "a",
    dataDir,
    limit: 500,
  });
  const again = await truncateOutput(text("again"), {
    callId: "call_1",
    sessionId: "a",
    dataDir,
    limit: 500,
  });
  const spool = new OutputSpool({ callId: "call_1", sessionId: "a", dataDir, limit: 500 });
  spool.append(text("spool"));
  spool.finish();
  await truncateOutput(text("other"), { callId: "call_1", sessionId: "b", dataDir, limit: 500 });
  assertStringIncludes(first, `${dataDir}/tool-output/a/call_1.txt`);
  assertStringIncludes(again, `${dataDir}/tool-output/a/call_1-2.txt`);
  assertEquals(spool.file, `${dataDir}/tool-output/a/call_1-3.txt`);
  assertEquals(await Deno.readTextFile(`${dataDir}/tool-output/a/call_1.txt`), text("first"));
  assertEquals(await Deno.readTextFile(`${dataDir}/tool-output/a/call_1-2.txt`), text("again"));
  assertEquals(await Deno.readTextFile(`${dataDir}/tool-output/b/call_1.txt`), text("other"));
  await Deno.remove(dataDir, { recursive: true });
});
