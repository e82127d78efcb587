/**
 * The engine Worker's file writes, when the terminal side runs a confined
 * writer, go out over the Worker's own channel as `files` requests and wait
 * for the terminal side's reply: a refused write is not made on the engine's
 * thread instead, and an answered one completes the call.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import type { FromEngine, ToEngine } from "../../src/engine/protocol.ts";
import type { WriterRequest } from "../../src/sandbox/writer/writer_messages.ts";
import { toolSpecIn, withSpecRoot } from "./_spec.ts";

interface ToolAnswer {
  ok: boolean;
  error?: { message: string };
}

Deno.test("the engine's writes go to the terminal side's writer, which decides", async () => {
  await withSpecRoot(async (root) => {
    const worker = new Worker(new URL("../../src/engine/worker_main.ts", import.meta.url), {
      type: "module",
    });
    const requests: WriterRequest[] = [];
    let refuse = true;
    const waiting = new Map<number, (message: FromEngine) => void>();
    const send = (message: ToEngine) => worker.postMessage(message);
    worker.onmessage = (event: MessageEvent<FromEngine>) => {
      const message = event.data;
      if (message.type === "files") {
        requests.push(message.request);
        const { id } = message.request;
        if (refuse) {
          const error = { name: "Error", message: "refused by the test's writer" };
          send({ type: "files", reply: { id, ok: false, error } });
        } else {
          const request = message.request;
          if (request.op === "write") Deno.writeFileSync(request.file, request.bytes);
          send({ type: "files", reply: { id, ok: true } });
        }
      } else if (message.type === "result" || message.type === "failure") {
        waiting.get(message.id)?.(message);
      }
    };
    let nextId = 1;
    const request = (message: Record<string, unknown>) =>
      new Promise<FromEngine>((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        send({ ...message, id } as ToEngine);
      });
    try {
      send({ type: "init", spec: toolSpecIn(root), files: true });
      const opened = await request({ type: "open", selector: {} });
      assertEquals(opened.type, "result", JSON.stringify(opened));
      const input = { file_path: "made.txt", content: "by the writer\n" };

      const refused = await request({ type: "tool", name: "write", input });
      const refusedAnswer = (refused as { value: ToolAnswer }).value;
      assertEquals(refusedAnswer.ok, false, JSON.stringify(refused));
      assertStringIncludes(refusedAnswer.error?.message ?? "", "refused by the test's writer");
      assertEquals(requests.length, 1);
      assertEquals(requests[0].op, "write");
      assertEquals(
        await Deno.stat(`${root}/work/made.txt`).then(() => true, () => false),
        false,
        "a write the writer refused is not made on the engine's thread",
      );

      refuse = false;
      const written = await request({ type: "tool", name: "write", input });
      assertEquals((written as { value: ToolAnswer }).value.ok, true, JSON.stringify(written));
      assertEquals(await Deno.readTextFile(`${root}/work/made.txt`), "by the writer\n");
      assertEquals(requests.length, 2);
      await request({ type: "close" });
    } finally {
      worker.terminate();
    }
  });
});
