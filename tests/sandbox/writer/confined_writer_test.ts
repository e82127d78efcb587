/**
 * The confined writer's client (src/sandbox/writer/confined_writer.ts): a
 * write waits for the writer's answer to it, and when the writer's Worker
 * dies or is closed, every waiting write fails, saying so, instead of
 * waiting forever.
 */
import { assertEquals, assertRejects } from "../../support/assert.ts";
import {
  ConfinedWriterClient,
  startConfinedWriter,
} from "../../../src/sandbox/writer/confined_writer.ts";

/** A stand-in writer: reports no confinement, then dies at its first request. */
const DYING_WRITER = `
let started = false;
self.onmessage = () => {
  if (!started) {
    started = true;
    self.postMessage({ type: "confinement", result: { kind: "unavailable", reason: "test" } });
  } else {
    setTimeout(() => { throw new Error("writer bug for the test"); }, 0);
  }
};`;

Deno.test("confined writer: a writer that dies fails every waiting write, and every later one", async () => {
  const module = new URL(`data:application/javascript,${encodeURIComponent(DYING_WRITER)}`);
  const writer = startConfinedWriter([], module);
  const client = new ConfinedWriterClient(writer.link);
  try {
    assertEquals((await writer.confinement).kind, "unavailable");
    const waiting = [client.write("/nowhere/a", new Uint8Array()), client.remove("/nowhere/b")];
    for (const write of waiting) {
      await assertRejects(() => write, Error, "the file writer crashed");
    }
    await assertRejects(() => client.remove("/nowhere/c"), Error, "the file writer crashed");
  } finally {
    client.close();
    writer.close();
  }
});

Deno.test("confined writer: a closed client fails its waiting writes", async () => {
  const dir = await Deno.makeTempDir();
  const writer = startConfinedWriter([dir]);
  const client = new ConfinedWriterClient(writer.link);
  try {
    await client.write(`${dir}/kept`, new TextEncoder().encode("kept"));
    assertEquals(await Deno.readTextFile(`${dir}/kept`), "kept");
    const waiting = client.write(`${dir}/late`, new Uint8Array());
    client.close();
    await assertRejects(() => waiting, Error, "the file writer was closed");
  } finally {
    writer.close();
    await Deno.remove(dir, { recursive: true });
  }
});
