/**
 * Two prompts in one opened engine session: each is its own run, with its
 * own abort signal and its own prompt number for undo snapshots.
 */
import { assertEquals } from "../support/assert.ts";
import { Engine } from "../../src/engine/engine.ts";
import { testSpec } from "./_spec.ts";
import type { ChatProvider, ChatResponse } from "../../src/provider/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { OUTCOME_EXIT_CODES } from "../../src/cli/exit_codes.ts";

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };

function writeCall(id: string, path: string): ChatResponse {
  const input = { file_path: path, content: `${path}\n` };
  return {
    text: "",
    toolCalls: [{ id, name: "write", arguments: JSON.stringify(input) }],
    finishReason: "tool_calls",
    usage,
  };
}

function answer(text: string): ChatResponse {
  return { text, toolCalls: [], finishReason: "stop", usage };
}

async function withEngine(
  steps: (() => Promise<ChatResponse>)[],
  work: (engine: Engine, root: string, events: SkiffEvent[], store: Store) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-engine-runs-" }));
  for (const dir of ["work", "data", "config"]) await Deno.mkdir(`${root}/${dir}`);
  const store = openStore(`${root}/data`);
  const events: SkiffEvent[] = [];
  const provider: ChatProvider = {
    baseURL: "http://mock",
    stream: () => steps.shift()!(),
  };
  const engine = new Engine(
    testSpec({
      workspace: `${root}/work`,
      dataDir: `${root}/data`,
      configDir: `${root}/config`,
      flags: { allow: ["edit"], ask: [], deny: [], yes: false },
    }),
    { event: (event) => events.push(event), ask: () => Promise.resolve("deny") },
    store,
    provider,
  );
  try {
    await work(engine, root, events, store);
  } finally {
    await engine.close();
    store.close();
    await Deno.remove(root, { recursive: true });
  }
}

function exitCodes(events: SkiffEvent[]): number[] {
  return events.filter((event) => event.type === "session.completed")
    .map((event) => (event as Extract<SkiffEvent, { type: "session.completed" }>).exit_code);
}

Deno.test("an abort stops the prompt it reaches; the next prompt runs with a fresh signal", async () => {
  let stop = () => {};
  // Prompt 1 is interrupted (Ctrl-C) during its model step; prompt 2 answers.
  const steps = [
    () => {
      stop();
      return Promise.reject(new DOMException("The operation was aborted.", "AbortError"));
    },
    () => Promise.resolve(answer("done")),
  ];
  await withEngine(steps, async (engine, _root, events) => {
    stop = () => engine.abort();
    await engine.open();
    const first = await engine.run({ prompt: "one", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 5 });
    assertEquals(first.exitCode, 130);
    const second = await engine.run({ prompt: "two", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 5 });
    assertEquals(second.exitCode, 0, "the first prompt's Ctrl-C does not stop the second");
    assertEquals(second.text, "done");
    assertEquals(exitCodes(events), [130, 0]);
  });
});

Deno.test("each prompt of one engine session files its undo snapshots under its own number", async () => {
  const steps = [
    () => Promise.resolve(writeCall("c1", "a.txt")),
    () => Promise.resolve(answer("wrote a")),
    () => Promise.resolve(writeCall("c2", "b.txt")),
    () => Promise.resolve(answer("wrote b")),
  ];
  await withEngine(steps, async (engine, root, events, store) => {
    const session = await engine.open();
    await engine.run({ prompt: "write a", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 5 });
    await engine.run({ prompt: "write b", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 5 });
    assertEquals(exitCodes(events), [0, 0]);
    assertEquals(await Deno.readTextFile(`${root}/work/b.txt`), "b.txt\n");
    const snapshots = store.snapshots;
    assertEquals(snapshots.lastPrompt(session.id), 2);
    assertEquals(snapshots.forPrompt(session.id, 1).map((s) => s.path), [`${root}/work/a.txt`]);
    assertEquals(snapshots.forPrompt(session.id, 2).map((s) => s.path), [`${root}/work/b.txt`]);
  });
});
