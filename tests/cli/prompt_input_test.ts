/**
 * The prompt of `skiff run` from its arguments and piped stdin: end to end
 * through the real process (what reaches the model), and the cases a pipe
 * cannot show (a terminal on stdin, a writer that never closes).
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { MAIN, runInWorkspace, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockServer } from "../support/mock_server.ts";
import {
  readPrompt,
  readStdinNow,
  STDIN_LIMIT_BYTES,
  type StdinNow,
} from "../../src/cli/prompt_input.ts";

function lastUserMessage(mock: MockServer): string {
  const messages = mock.requests[0].messages as { role: string; content: string }[];
  return messages.filter((message) => message.role === "user").at(-1)!.content;
}

const DIFF = "diff --git a/a.ts b/a.ts\n-const port = 80;\n+const port = 8080;\n";

Deno.test("git diff | skiff run 'review this change' sends the prompt and the diff, fenced, with its size", async () => {
  await withMockSandbox([{ text: "looks fine" }], async (sandbox, mock) => {
    const result = await runSkiff(["run", "review this change"], sandbox, { input: DIFF });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(
      lastUserMessage(mock),
      `review this change\n\nPiped to skiff on stdin (${DIFF.length} bytes, 3 lines):\n\`\`\`\n${DIFF.trimEnd()}\n\`\`\``,
    );
    assertStringIncludes(result.stderr, `added piped stdin (${DIFF.length} bytes) to the prompt`);
  });
});

Deno.test("an empty stdin adds nothing; `skiff run -` takes the prompt from stdin", async () => {
  await withMockSandbox([{ text: "a" }, { text: "b" }], async (sandbox, mock) => {
    const empty = await runSkiff(["run", "just this"], sandbox, { input: "" });
    assertEquals(empty.code, 0, empty.stderr);
    assertEquals(lastUserMessage(mock), "just this");
    assert(!empty.stderr.includes("piped stdin"), empty.stderr);
    const dash = await runSkiff(["run", "-"], sandbox, { input: "from the pipe\n" });
    assertEquals(dash.code, 0, dash.stderr);
    const second = mock.requests[1].messages as { role: string; content: string }[];
    assertEquals(
      second.filter((message) => message.role === "user").at(-1)!.content,
      "from the pipe",
    );
  });
});

Deno.test("piped text with a ``` fence of its own gets a longer fence", async () => {
  await withMockSandbox([{ text: "ok" }], async (sandbox, mock) => {
    const input = "# Readme\n```sh\nmake\n```\n";
    const result = await runSkiff(["run", "summarise"], sandbox, { input });
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(lastUserMessage(mock), "\n````\n# Readme\n```sh\nmake\n```\n````");
  });
});

Deno.test("exit 2 before any model request: piped stdin over the limit, or not text", async () => {
  await withMockSandbox([{ text: "never" }], async (sandbox, mock) => {
    const huge = await runSkiff(["run", "review"], sandbox, {
      input: "x".repeat(STDIN_LIMIT_BYTES + 10),
    });
    assertEquals(huge.code, 2, huge.stderr);
    assertStringIncludes(huge.stderr, "piped stdin is larger than 256.0 KB");
    assertStringIncludes(huge.stderr, "Save it to a file in the workspace");
    const binary = await runSkiff(["run", "review"], sandbox, { input: "PK\x03\x04\0\0\0" });
    assertEquals(binary.code, 2, binary.stderr);
    assertStringIncludes(binary.stderr, "is not text");
    assert(!huge.stderr.includes("internal error") && !binary.stderr.includes("internal error"));
    assertEquals(mock.requests.length, 0);
  });
});

/** A stdin whose stream must not be read. */
const terminal = {
  isTerminal: () => true,
  readable: new ReadableStream<Uint8Array>({
    pull() {
      throw new Error("a terminal on stdin was read");
    },
  }),
};

Deno.test("a terminal on stdin is not read: the arguments are the prompt, or exit 2 without them", async () => {
  assertEquals(await readPrompt(["fix", "it"], { stdin: terminal }), "fix it");
  const error = await readPrompt([], { stdin: terminal }).catch((caught) => caught);
  assertStringIncludes(String(error.message), "no prompt");
});

Deno.test("a writer that keeps stdin open is told what skiff waits for", async () => {
  const notes: string[] = [];
  let send: (text: string) => void = () => {};
  let end: () => void = () => {};
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      send = (text) => controller.enqueue(new TextEncoder().encode(text));
      end = () => controller.close();
    },
  });
  const prompt = readPrompt(["review"], {
    stdin: { isTerminal: () => false, readable },
    notice: (text) => notes.push(text),
    waitNoticeMs: 20,
  });
  await new Promise((resolve) => setTimeout(resolve, 60));
  assertStringIncludes(notes[0] ?? "", "waiting for piped stdin to end");
  assertStringIncludes(notes[0] ?? "", "</dev/null");
  send("late text\n");
  end();
  assertStringIncludes(await prompt, "review\n\nPiped to skiff on stdin (10 bytes, 1 line):");
});

/** A stdin of `kind`, read from `parts` in turn, with /dev/null as device 259. */
function fakeStdin(kind: "file" | "null" | "zero" | "fifo", parts: string[] = []): StdinNow {
  const queue = parts.map((part) => new TextEncoder().encode(part));
  return {
    stat: (path) =>
      path === "/dev/null" ? { isFile: false, isCharDevice: true, rdev: 259 } : {
        isFile: kind === "file",
        isCharDevice: kind !== "file" && kind !== "fifo",
        rdev: kind === "zero" ? 261 : 259,
      },
    read(buffer) {
      const next = queue.shift();
      if (!next) return null;
      buffer.set(next);
      return next.length;
    },
  };
}

Deno.test("readStdinNow: a file or /dev/null is read at once; a pipe or another device is not", () => {
  const file = readStdinNow(100, fakeStdin("file", ["ab", "cd"]));
  assertEquals(new TextDecoder().decode(file?.bytes), "abcd");
  assertEquals(file?.over, false);
  assertEquals(readStdinNow(100, fakeStdin("null"))?.bytes.length, 0);
  assertEquals(readStdinNow(100, fakeStdin("fifo", ["x"])), undefined);
  assertEquals(readStdinNow(100, fakeStdin("zero", ["\0"])), undefined);
  const failing: StdinNow = {
    stat: () => {
      throw new Deno.errors.NotFound("no /dev/stdin");
    },
    read: () => null,
  };
  assertEquals(readStdinNow(100, failing), undefined);
  // Reading stops one chunk past the limit, as the stream's reading does.
  const over = readStdinNow(3, fakeStdin("file", ["ab", "cd", "never read"]));
  assertEquals(over?.over, true);
  assertEquals(over?.bytes.length, 4);
});

Deno.test("skiff run with a file or /dev/null on stdin: the file is added, /dev/null adds nothing", async () => {
  await withMockSandbox([{ text: "a" }, { text: "b" }], async (sandbox, mock) => {
    const notes = `${sandbox.workspace}/notes.txt`;
    await Deno.writeTextFile(notes, "step one\nstep two\n");
    const run = (redirect: string) =>
      runInWorkspace("sh", [
        "-c",
        `exec "$0" run --allow-all --unstable-worker-options --no-prompt "$1" run "follow these" < "$2"`,
        Deno.execPath(),
        MAIN,
        redirect,
      ], sandbox);
    const fromFile = await run(notes);
    assertEquals(fromFile.code, 0, fromFile.stderr);
    assertEquals(
      lastUserMessage(mock),
      "follow these\n\nPiped to skiff on stdin (18 bytes, 2 lines):\n```\nstep one\nstep two\n```",
    );
    const fromNull = await run("/dev/null");
    assertEquals(fromNull.code, 0, fromNull.stderr);
    const second = mock.requests[1].messages as { role: string; content: string }[];
    assertEquals(
      second.filter((message) => message.role === "user").at(-1)!.content,
      "follow these",
    );
  });
});
