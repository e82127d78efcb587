/**
 * Two processes on one database file, and a process killed mid-write: the
 * situations a user meets when two terminals run skiff, or Ctrl-C lands
 * between writes.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { makeEvent } from "../../src/contracts/events.ts";

const STORE_MODULE = new URL("../../src/store/store.ts", import.meta.url).href;
const REPO = new URL("../..", import.meta.url).pathname;

/** Run `code` in a second Deno process with the store module as `openStore`. */
function spawnEval(code: string, args: string[]): Deno.ChildProcess {
  const script = `import { openStore } from ${JSON.stringify(STORE_MODULE)};\n` +
    `const args = Deno.args;\n${code}`;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script, ...args],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<{
  line: string;
  rest: ReadableStreamDefaultReader<string>;
}> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (!buffer.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
  }
  return { line: buffer.split("\n")[0], rest: reader };
}

Deno.test("store: a second process reads and writes while this one writes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-store-" });
  try {
    const store = openStore(dir);
    const session = store.createSession({ workspace: "/w", model: "m", agent: "build" });
    const rounds = 300;

    // The other process appends events and reads the history as it grows.
    const child = spawnEval(
      `
      const store = openStore(args[0]);
      const id = args[1];
      console.log("ready");
      let seen = 0, shrank = false;
      for (let i = 0; i < Number(args[2]); i++) {
        store.appendEvent({ type: "turn.started", session_id: id, timestamp: new Date().toISOString(), turn: i });
        const length = store.loadHistory(id).length;
        if (length < seen) shrank = true;
        seen = length;
      }
      // Then keep reading until every message of the other process is visible.
      const deadline = Date.now() + 20000;
      while (seen < Number(args[2]) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const length = store.loadHistory(id).length;
        if (length < seen) shrank = true;
        seen = length;
      }
      store.close();
      console.log(JSON.stringify({ seen, shrank }));
      `,
      [dir, session.id, String(rounds)],
    );
    const { line, rest } = await firstLine(child.stdout);
    assertEquals(line, "ready");

    // Meanwhile this process appends messages, yielding so the child runs alongside.
    for (let i = 0; i < rounds; i++) {
      const id = store.appendMessage(session.id, "user");
      store.appendPart(session.id, id, "text", { type: "text", text: `m${i}` });
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    let output = "";
    for (;;) {
      const { value, done } = await rest.read();
      if (done) break;
      output += value;
    }
    const status = await child.status;
    const stderr = await new Response(child.stderr).text();
    assertEquals(status.code, 0, `the second process failed: ${stderr}`);
    const report = JSON.parse(output.trim().split("\n").pop()!);
    assertEquals(report.shrank, false, "a reader never sees history go backwards");
    assertEquals(report.seen, rounds, "the reader saw every write of this process");

    assertEquals(store.loadHistory(session.id).length, rounds);
    assertEquals(store.listEvents(session.id).length, rounds);
    store.appendEvent(makeEvent("turn.started", session.id, { turn: rounds }));
    assertEquals(store.listEvents(session.id).at(-1)?.type, "turn.started");
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("store: a process killed mid-session loses nothing it had written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-store-" });
  try {
    const setup = openStore(dir);
    const session = setup.createSession({ workspace: "/w", model: "m", agent: "build" });
    setup.close();

    // The child writes forever, printing each message id once append returned.
    const child = spawnEval(
      `
      const store = openStore(args[0]);
      for (let i = 0; ; i++) {
        const id = store.appendMessage(args[1], "assistant");
        store.appendPart(args[1], id, "text", { type: "text", text: "part " + i });
        console.log(id);
      }
      `,
      [dir, session.id],
    );
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    while (printed.split("\n").length < 60) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += value;
    }
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stderr.cancel();

    const confirmed = printed.split("\n").slice(0, -1); // the last line may be cut
    assert(confirmed.length >= 50, `expected 50+ confirmed writes, got ${confirmed.length}`);
    const store = openStore(dir);
    const history = store.loadHistory(session.id);
    const stored = new Set(history.map((message) => message.id));
    for (const id of confirmed) assert(stored.has(id), `message ${id} was confirmed but lost`);
    // At most the message in flight lacks its part.
    assert(history.filter((message) => message.parts.length === 0).length <= 1);
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
