/**
 * The system prompt is built again for every prompt of a session (the date,
 * the git state and memory move on), and with it the instruction files are
 * read again. A skipped one (an AGENTS.md that is a FIFO) was warned about at
 * every prompt of the chat; it is warned about once per session.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { prepare } from "../../src/host/setup.ts";
import { Engine } from "../../src/engine/engine.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import type { ChatProvider, ChatRequest } from "../../src/provider/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import { openStore } from "../../src/store/store.ts";
import { OUTCOME_EXIT_CODES } from "../../src/cli/exit_codes.ts";

async function mkfifo(file: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert(made.success, `mkfifo failed: ${new TextDecoder().decode(made.stderr)}`);
}

/** Answers every request at once; keeps each request's system prompt. */
function answeringProvider(systems: string[]): ChatProvider {
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  return {
    baseURL: "http://mock",
    stream: (request: ChatRequest) => {
      systems.push(JSON.stringify(request.messages[0]));
      return Promise.resolve({ text: "done", toolCalls: [], finishReason: "stop", usage });
    },
  };
}

Deno.test("a skipped AGENTS.md is warned about once per session, not at every prompt", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-warn-once-" }));
  const workspace = path.join(root, "repo");
  const configDir = path.join(root, "config");
  const dataDir = path.join(root, "data");
  await Deno.mkdir(path.join(workspace, ".git"), { recursive: true });
  await Deno.mkdir(configDir);
  await mkfifo(path.join(workspace, "AGENTS.md"));
  await Deno.writeTextFile(path.join(workspace, "CLAUDE.md"), "CLAUDE-RULES");
  const saved = Deno.env.get("SKIFF_CONFIG_DIR");
  Deno.env.set("SKIFF_CONFIG_DIR", configDir);
  const store = openStore(dataDir);
  const events: SkiffEvent[] = [];
  const systems: string[] = [];
  let engine: Engine | undefined;
  try {
    const prepared = await prepare({ dir: workspace, model: "m" }, false);
    const spec: EngineSpec = {
      ...prepared.spec,
      dataDir,
      sandbox: { ...prepared.spec.sandbox, mode: "read-only" },
    };
    engine = new Engine(
      spec,
      { event: (event) => events.push(event), ask: () => Promise.resolve("deny") },
      store,
      answeringProvider(systems),
    );
    await engine.open();
    for (const prompt of ["first", "second"]) {
      const result = await engine.run({ prompt, exitCodes: OUTCOME_EXIT_CODES, maxTurns: 2 });
      assertEquals(result.outcome, "completed");
    }
    // Both prompts were answered with the prompt built again: CLAUDE.md beside it is read each time.
    assertEquals(systems.length, 2);
    assert(systems.every((system) => system.includes("CLAUDE-RULES")), "CLAUDE.md is read");
    const skipped = events.filter((event) =>
      event.type === "warning" && String(event.message).includes("AGENTS.md was not read")
    );
    assertEquals(skipped.length, 1, JSON.stringify(skipped));
    // It comes with the first prompt, after that prompt's session.started.
    const firstCompleted = events.findIndex((event) => event.type === "session.completed");
    assert(events.indexOf(skipped[0]) < firstCompleted, "warned during the first prompt");
  } finally {
    await engine?.close();
    store.close();
    if (saved === undefined) Deno.env.delete("SKIFF_CONFIG_DIR");
    else Deno.env.set("SKIFF_CONFIG_DIR", saved);
    await Deno.remove(root, { recursive: true });
  }
});
