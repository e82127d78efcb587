/**
 * The session engine in this thread, with a scripted provider: how a run ends
 * as events (docs/events.md), and Ctrl-C while the session is still opening.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { Engine } from "../../src/engine/engine.ts";
import { startInProcess } from "../../src/engine/handle.ts";
import { testSpec } from "./_spec.ts";
import type { EngineIO, EngineSpec } from "../../src/engine/types.ts";
import type { ChatProvider } from "../../src/provider/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import { openStore } from "../../src/store/store.ts";
import { OUTCOME_EXIT_CODES } from "../../src/cli/exit_codes.ts";

async function withDirs(work: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-engine-" }));
  for (const dir of ["work", "data", "config"]) await Deno.mkdir(`${root}/${dir}`);
  try {
    await work(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function spec(root: string): EngineSpec {
  return testSpec({
    workspace: `${root}/work`,
    dataDir: `${root}/data`,
    configDir: `${root}/config`,
    sandbox: { mode: "read-only", network: false, addDirs: [], env: [] },
  });
}

function recordingIO(): { io: EngineIO; events: SkiffEvent[] } {
  const events: SkiffEvent[] = [];
  return {
    io: { event: (event) => events.push(event), ask: () => Promise.resolve("deny") },
    events,
  };
}

Deno.test("an internal error still ends the stream with error, then session.completed", async () => {
  await withDirs(async (root) => {
    const store = openStore(`${root}/data`);
    const broken: ChatProvider = {
      baseURL: "http://mock",
      stream: () => Promise.reject(new TypeError("a bug in the client")),
    };
    const { io, events } = recordingIO();
    const engine = new Engine(spec(root), io, store, broken);
    try {
      const session = await engine.open();
      const result = await engine.run({ prompt: "hi", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 3 });
      assertEquals(result.exitCode, 1);
      const types = events.map((event) => event.type);
      assertEquals(types.slice(-2), ["error", "session.completed"]);
      const completed = events.at(-1) as Extract<SkiffEvent, { type: "session.completed" }>;
      assertEquals(completed.exit_code, 1);
      assertEquals(store.listEvents(session.id).at(-1)?.type, "session.completed");
      assertEquals(store.getSession(session.id)?.status, "failed");
    } finally {
      await engine.close();
      store.close();
    }
  });
});

Deno.test("usage spent before an internal error is still reported", async () => {
  await withDirs(async (root) => {
    const store = openStore(`${root}/data`);
    let calls = 0;
    const failsSecond: ChatProvider = {
      baseURL: "http://mock",
      stream: () => {
        calls++;
        if (calls > 1) return Promise.reject(new TypeError("a bug in the client"));
        return Promise.resolve({
          text: "",
          toolCalls: [{ id: "c1", name: "todoread", arguments: "{}" }],
          finishReason: "tool_calls",
          usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        });
      },
    };
    const { io, events } = recordingIO();
    const engine = new Engine(spec(root), io, store, failsSecond);
    try {
      await engine.open();
      await engine.run({ prompt: "hi", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 3 });
      const completed = events.at(-1) as Extract<SkiffEvent, { type: "session.completed" }>;
      assertEquals(completed.usage, { input_tokens: 10, output_tokens: 5, total_tokens: 15 });
      assertEquals(completed.turns, 1);
    } finally {
      await engine.close();
      store.close();
    }
  });
});

Deno.test("Ctrl-C while the session opens stops the run that follows (exit 130)", async () => {
  await withDirs(async (root) => {
    const { io, events } = recordingIO();
    const handle = await startInProcess(spec(root), io);
    try {
      handle.abort();
      await handle.open({});
      const result = await handle.run({ prompt: "hi", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 3 });
      assertEquals(result.exitCode, 130);
      assert(!events.some((event) => event.type === "turn.started"), "no model request was made");
      assertEquals(events.at(-1)?.type, "session.completed");
      const error = events.find((event) => event.type === "error");
      assertStringIncludes(String(error && "message" in error && error.message), "--session ses_");
    } finally {
      await handle.close();
    }
  });
});

Deno.test("--session of another workspace is refused with the command that continues it", async () => {
  await withDirs(async (root) => {
    const store = openStore(`${root}/data`);
    const other = store.createSession({ workspace: "/elsewhere", model: "m", agent: "build" });
    store.close();
    const handle = await startInProcess(spec(root), recordingIO().io);
    try {
      const error = await assertRejects(() => handle.open({ sessionId: other.id }));
      assertStringIncludes(String(error), "belongs to /elsewhere");
      assertStringIncludes(String(error), `--dir /elsewhere --session ${other.id}`);
    } finally {
      await handle.close();
    }
  });
});

Deno.test("--continue skips `skiff tool` batches and picks up the latest conversation", async () => {
  await withDirs(async (root) => {
    let clock = 1_000;
    const store = openStore(`${root}/data`, { now: () => clock++ });
    const workspace = `${root}/work`;
    const talk = store.createSession({ workspace, model: "m", agent: "build" });
    store.createSession({ workspace, model: "", agent: "tool" });
    store.close();
    const handle = await startInProcess(spec(root), recordingIO().io);
    try {
      assertEquals(await handle.open({ continueLatest: true }), talk.id);
    } finally {
      await handle.close();
    }
  });
});

Deno.test("a tool call sent before the opening is answered waits for it, and fails with it", async () => {
  await withDirs(async (root) => {
    await Deno.writeTextFile(`${root}/work/a.txt`, "alpha\n");
    const toolSpec = { ...spec(root), agent: "tool" };
    const handle = await startInProcess(toolSpec, recordingIO().io);
    try {
      // Both sent at once, as `skiff tool` does: the call runs once the session is open.
      const [id, result] = await Promise.all([
        handle.open({}),
        handle.runTool("read", { file_path: "a.txt" }, { inOrder: true }),
      ]);
      assert(result.ok, JSON.stringify(result));
      assertStringIncludes(result.output, "alpha");
      const store = openStore(`${root}/data`);
      try {
        const types = store.listEvents(id).map((event) => event.type);
        assert(types.includes("tool.completed"), types.join(" "));
      } finally {
        store.close();
      }
    } finally {
      await handle.close();
    }

    // An opening that fails fails the calls that waited for it, with its own error.
    const store = openStore(`${root}/data`);
    const other = store.createSession({ workspace: "/elsewhere", model: "m", agent: "build" });
    store.close();
    const refused = await startInProcess(toolSpec, recordingIO().io);
    try {
      const call = refused.runTool("read", { file_path: "a.txt" }, { inOrder: true });
      const opening = refused.open({ sessionId: other.id });
      const openError = await assertRejects(() => opening);
      const callError = await assertRejects(() => call);
      assertEquals(callError, openError);
      assertStringIncludes(String(callError), "belongs to /elsewhere");
    } finally {
      await refused.close();
    }
  });
});

Deno.test("closing with `ending` commits everything and leaves only the store's close", async () => {
  await withDirs(async (root) => {
    const handle = await startInProcess({ ...spec(root), agent: "tool" }, recordingIO().io);
    const id = await handle.open({});
    await handle.close({ ending: true });
    // Another connection sees the session ended while the first is still open,
    // its log not yet folded into the database (the thread's end does that).
    const files = [...Deno.readDirSync(`${root}/data`)].map((entry) => entry.name);
    assert(files.includes("skiff.db-wal"), files.join(" "));
    const store = openStore(`${root}/data`);
    try {
      assertEquals(store.getSession(id)?.status, "completed");
    } finally {
      store.close();
    }
  });
});
