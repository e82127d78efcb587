/**
 * The one request/response correlator (src/lib/rpc.ts): each reply reaches
 * the request that carried its id, whatever order the peer answers in; when
 * the peer dies, every waiting request, and every later one, fails with the
 * same message instead of waiting forever.
 */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { peerCrashed, RpcClient } from "../../src/lib/rpc.ts";

/**
 * A Worker that answers `{ id, value }` messages in reverse order once it has
 * two, doubling each value, and dies of an uncaught error on `{ crash }`.
 */
const SOURCE = `
const held = [];
self.onmessage = ({ data }) => {
  if (data.crash) setTimeout(() => { throw new Error("peer bug for the test"); }, 0);
  else if (held.push(data) === 2) {
    for (const { id, value } of held.reverse()) {
      if (value < 0) self.postMessage({ id, error: "negative " + value });
      else self.postMessage({ id, value: value * 2 });
    }
    held.length = 0;
  }
};`;

function startPeer(): { worker: Worker; rpc: RpcClient<{ value: number } | { crash: true }> } {
  const worker = new Worker(`data:application/javascript,${encodeURIComponent(SOURCE)}`, {
    type: "module",
  });
  const rpc = new RpcClient<{ value: number } | { crash: true }>((id, request) =>
    worker.postMessage({ ...request, id })
  );
  worker.onmessage = ({ data }: MessageEvent<{ id: number; value?: number; error?: string }>) => {
    if (data.error) rpc.reject(data.id, new Error(data.error));
    else rpc.resolve(data.id, data.value);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    rpc.fail(peerCrashed("the test peer", event.message, "start it again"));
    worker.terminate();
  };
  return { worker, rpc };
}

Deno.test("rpc: each reply reaches its own request, in whatever order the peer answers", async () => {
  const { worker, rpc } = startPeer();
  try {
    const first = rpc.request<number>({ value: 1 });
    const second = rpc.request<number>({ value: 20 });
    assertEquals(await Promise.all([first, second]), [2, 40]);
    const failing = rpc.request<number>({ value: -3 });
    const third = rpc.request<number>({ value: 5 });
    assertEquals(await third, 10);
    await assertRejects(() => failing, Error, "negative -3");
    assertEquals(rpc.waiting, 0);
  } finally {
    worker.terminate();
  }
});

Deno.test("rpc: when the Worker dies, every waiting request and every later one fails with one message", async () => {
  const { worker, rpc } = startPeer();
  try {
    const waiting = [rpc.request({ value: 1 }), rpc.request({ crash: true })];
    const errors = await Promise.all(waiting.map((request) => request.then(() => null, (e) => e)));
    const message = "the test peer crashed: Uncaught Error: peer bug for the test. start it again";
    assertEquals(errors.map((error) => (error as Error).message), [message, message]);
    assertEquals(rpc.waiting, 0);
    await assertRejects(() => rpc.request({ value: 2 }), Error, message);
  } finally {
    worker.terminate();
  }
});

Deno.test("rpc: a reply to no waiting request is dropped, and the first failure stays", async () => {
  const posted: number[] = [];
  const rpc = new RpcClient<string>((id) => posted.push(id));
  const answered = rpc.request<string>("a");
  rpc.resolve(99, "stray");
  rpc.resolve(posted[0], "ok");
  rpc.resolve(posted[0], "twice");
  assertEquals(await answered, "ok");
  rpc.fail(new Error("first"));
  rpc.fail(new Error("second"));
  await assertRejects(() => rpc.request("b"), Error, "first");
  assertEquals(posted.length, 1);
});
