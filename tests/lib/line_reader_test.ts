/**
 * Lines from a child's pipe in linear time, however the text is cut, and
 * bounded: a line past the bound is dropped whole and the next one comes
 * through. End to end: an MCP server that sends megabytes without a newline
 * before its answer is read within a stated time, and the answer arrives.
 * The control runs the old way (append, then search the whole buffer) on a
 * sixteenth of the input.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { lineReader, LineSplitter } from "../../src/lib/line_reader.ts";
import { StdioTransport } from "../../src/mcp/stdio_transport.ts";

/** The old reader's loop: the whole buffer searched again on every chunk. */
function oldSplit(chunks: Iterable<string>): string[] {
  const lines: string[] = [];
  let pending = "";
  for (const chunk of chunks) {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      lines.push(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
  }
  return lines;
}

function* kilobytes(count: number): Generator<string> {
  const chunk = "x".repeat(1024);
  for (let index = 0; index < count; index++) yield chunk;
  yield "\nnext\n";
}

Deno.test("a 16 MB line in 1 KB chunks is split in linear time; the old loop took longer on 1 MB", () => {
  const splitter = new LineSplitter(32 * 1024 * 1024);
  let start = performance.now();
  const lines: string[] = [];
  for (const chunk of kilobytes(16 * 1024)) lines.push(...splitter.push(chunk));
  const now = performance.now() - start;
  assertEquals(lines.map((line) => line.length), [16 * 1024 * 1024, 4]);
  assert(now < 2_000, `${Math.round(now)} ms`);
  start = performance.now();
  assertEquals(oldSplit(kilobytes(1024)).length, 2);
  const old = performance.now() - start;
  console.log(`new: 16 MB in ${Math.round(now)} ms; old: 1 MB in ${Math.round(old)} ms`);
  assert(old > now, `old ${Math.round(old)} ms on 1 MB, new ${Math.round(now)} ms on 16 MB`);
});

Deno.test("a line past the bound is dropped whole, and the lines around it come through", () => {
  const dropped: number[] = [];
  const splitter = new LineSplitter(10, (bound) => dropped.push(bound));
  const lines = [
    ...splitter.push("first\nabcdef"),
    ...splitter.push("ghijkl"),
    ...splitter.push("mnop\nsecond\n0123456789ABC\nthird"),
  ];
  assertEquals(lines, ["first", "second"]);
  assertEquals(dropped, [10, 10]);
  assertEquals(splitter.end(), "third");
  assertEquals(splitter.end(), null);
});

Deno.test("lineReader hands lines out one by one, the unfinished rest last", async () => {
  const stream = ReadableStream.from(
    ["a\nb", "c\n\nd"].map((text) => new TextEncoder().encode(text)),
  );
  const reader = lineReader(stream);
  const lines = [];
  for (let line = await reader.next(); line !== null; line = await reader.next()) lines.push(line);
  assertEquals(lines, ["a", "bc", "", "d"]);
});

Deno.test("an MCP server sending 24 MB without a newline: its next message arrives within 10 s", async () => {
  const script = `
    const out = Deno.stdout;
    const chunk = new TextEncoder().encode("x".repeat(4096));
    for (let i = 0; i < 6 * 1024; i++) await out.write(chunk);
    await out.write(new TextEncoder().encode('\\n{"jsonrpc":"2.0","id":7,"result":{}}\\n'));
    await new Promise((resolve) => setTimeout(resolve, 60_000));
  `;
  const transport = new StdioTransport({
    command: Deno.execPath(),
    args: ["eval", script],
    env: { NO_COLOR: "1", DENO_DIR: Deno.env.get("DENO_DIR") ?? "" },
  });
  const errors: string[] = [];
  const start = performance.now();
  const message = new Promise<Record<string, unknown>>((resolve) => transport.onmessage = resolve);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  try {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("no message within 10 s")), 10_000)
    );
    const received = await Promise.race([message, timeout]);
    assertEquals(received.id, 7);
    assert(performance.now() - start < 10_000);
    assertEquals(errors.length, 1);
    assertStringIncludes(errors[0], "longer than");
  } finally {
    await transport.close();
  }
});
