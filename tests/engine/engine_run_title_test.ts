/**
 * A session is titled by the first thing the person typed. The chat sends a
 * `!command`'s output with the next message, and that prompt's first line
 * ("I ran `pwd` myself; its output:") became the title in `skiff sessions
 * list` and the resume picker; `RunRequest.title` carries the typed text.
 */
import { assertEquals } from "../support/assert.ts";
import { Engine } from "../../src/engine/engine.ts";
import type { EngineIO } from "../../src/engine/types.ts";
import type { ChatProvider } from "../../src/provider/types.ts";
import { openStore } from "../../src/store/store.ts";
import { OUTCOME_EXIT_CODES } from "../../src/cli/exit_codes.ts";
import { testSpec } from "./_spec.ts";

const io: EngineIO = { event: () => {}, ask: () => Promise.resolve("deny") };
const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
const provider: ChatProvider = {
  baseURL: "http://mock",
  stream: () => Promise.resolve({ text: "done", toolCalls: [], finishReason: "stop", usage }),
};

async function titleAfter(request: { prompt: string; title?: string }): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-run-title-" }));
  try {
    for (const dir of ["work", "data", "config"]) await Deno.mkdir(`${root}/${dir}`);
    const spec = testSpec({
      workspace: `${root}/work`,
      dataDir: `${root}/data`,
      configDir: `${root}/config`,
    });
    const store = openStore(spec.dataDir);
    const engine = new Engine(spec, io, store, provider);
    try {
      const { id } = await engine.open();
      const result = await engine.run({ ...request, exitCodes: OUTCOME_EXIT_CODES, maxTurns: 2 });
      assertEquals(result.outcome, "completed");
      return store.getSession(id)!.title;
    } finally {
      await engine.close();
      store.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("run: the session is titled by the typed text, not the notes sent before it", async () => {
  const prompt = "I ran `pwd` myself; its output:\n```\n/work\n```\n\nwhy is the build slow?";
  assertEquals(
    await titleAfter({ prompt, title: "why is the build slow?" }),
    "why is the build slow?",
  );
});

Deno.test("run: without a title the prompt's first line names the session", async () => {
  assertEquals(await titleAfter({ prompt: "fix the tests\nand more" }), "fix the tests");
});
