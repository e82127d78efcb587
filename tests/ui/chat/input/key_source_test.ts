/**
 * Keys typed in one burst reach an inline question one character at a time:
 * a terminal read can hold the approval's "r" and the reason typed after it
 * (seen in the chat's tmux test, where "rnaps are for cats" arrived as one
 * text key the question ignored, and the turn waited forever). What follows
 * a question's answer goes to whoever holds the keys next; the editor alone
 * still gets a burst as one key.
 */
import { assertEquals } from "../../../support/assert.ts";
import { KeySource, type KeyStream } from "../../../../src/ui/chat/input/key_source.ts";
import type { Key } from "../../../../src/ui/chat/input/keys.ts";
import { InlineBroker } from "../../../../src/ui/interactive_broker.ts";
import type { ApprovalRequest } from "../../../../src/permission/broker.ts";

/** A stream that gives each chunk in one read, once `next()` lets it, then ends. */
function chunked(): KeyStream & { send(text: string): void; end(): void } {
  const queue: (string | null)[] = [];
  let wake: (() => void) | undefined;
  return {
    send(text) {
      queue.push(text);
      wake?.();
    },
    end() {
      queue.push(null);
      wake?.();
    },
    async read(buffer) {
      while (queue.length === 0) await new Promise<void>((resolve) => wake = resolve);
      const next = queue.shift()!;
      if (next === null) return null;
      const bytes = new TextEncoder().encode(next);
      buffer.set(bytes);
      return bytes.length;
    },
  };
}

const BASH: ApprovalRequest = {
  tool: "bash",
  callId: "call_1",
  access: { key: "bash", patterns: ["sleep 17"], commands: ["sleep 17"] },
  decision: { action: "ask", reason: "bash → ask [defaults]", checks: [] },
  always: [{ key: "bash", patterns: ["sleep 17 *"] }],
};

/**
 * The chat's keys over `chunked()` reads, the editor holding them, and the
 * approval asked once: what the test sends, the answer, and what reached
 * the editor once the input has ended.
 */
function askedOnce() {
  const stream = chunked();
  const keys = new KeySource(stream, () => {}, 40, false);
  const editor: Key[] = [];
  const running = keys.run((key) => editor.push(key));
  const broker = new InlineBroker({ borrow: (consumer) => keys.borrow(consumer), print: () => {} });
  return {
    send: (text: string) => stream.send(text),
    answer: broker.ask(BASH),
    async editorKeys(): Promise<Key[]> {
      stream.end();
      await running;
      return editor;
    },
  };
}

Deno.test("an approval's 'r' and its reason typed in one read deny with that reason", async () => {
  const asked = askedOnce();
  asked.send("rnaps are for cats");
  asked.send("\r");
  assertEquals(await asked.answer, { deny: "naps are for cats" });
  assertEquals(await asked.editorKeys(), []);
});

Deno.test("what follows a question's one-key answer goes to the editor, in order", async () => {
  const asked = askedOnce();
  asked.send("yhi");
  assertEquals(await asked.answer, "once");
  asked.send("there");
  // One character each while the question held the keys, then the editor's own burst whole.
  assertEquals(await asked.editorKeys(), [
    { kind: "text", text: "h" },
    { kind: "text", text: "i" },
    { kind: "text", text: "there" },
  ]);
});
