/**
 * The per-turn cost of a Responses API request as the history grows: a
 * session of 200 tool round trips (~2 MB of history, each assistant message
 * carrying its encrypted reasoning) sent through the Responses provider to
 * a stub fetch, one more round trip a turn. A turn's cost is the time from
 * `stream()` to the request's body read whole by the fetch (as a real one
 * reads it to send), so it counts everything skiff does to write the body.
 * Prints the medians of the first and the last turns measured, and of all.
 *
 * `deno run --allow-all scripts/bench_responses_turns.ts [turns] [round trips]`; set
 * SKIFF_BENCH_SRC to another tree's src/ to measure a before and an after
 * in one sitting.
 */
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ChatMessage, ChatProvider, ToolSchema } from "../src/provider/types.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = Deno.env.get("SKIFF_BENCH_SRC") ?? path.join(ROOT, "src");
const { createResponsesProvider } = await import(
  pathToFileURL(path.join(SRC, "provider/responses/responses_provider.ts")).href
) as { createResponsesProvider(options: unknown): ChatProvider };

const BASE_URL = "http://127.0.0.1:9/v1";
const ROUND_TRIPS = Number(Deno.args[1] ?? 200);
const OUTPUT_BYTES = 9_000;
const TURNS = Number(Deno.args[0] ?? 60);
const WARM_UP = 10;

const events = [
  {
    type: "response.output_item.added",
    output_index: 0,
    item: { id: "msg_1", type: "message", role: "assistant", content: [] },
  },
  {
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 0,
    content_index: 0,
    delta: "ok",
  },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "ok" }],
    },
  },
  {
    type: "response.completed",
    response: {
      status: "completed",
      output: [],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    },
  },
];
const answer = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  .join("");

let startedAt = 0;
const bodySizes: number[] = [];
const costs: number[] = [];
const stubFetch: typeof fetch = async (_input, init) => {
  bodySizes.push((await new Response(init?.body).arrayBuffer()).byteLength);
  costs.push(performance.now() - startedAt);
  return new Response(answer, { headers: { "content-type": "text/event-stream" } });
};

const provider = createResponsesProvider({
  baseURL: BASE_URL,
  apiKey: "k",
  fetch: stubFetch,
  maxRetries: 0,
});
const origin = `${BASE_URL}#responses`;
const tools: ToolSchema[] = ["read", "write", "edit", "bash", "grep", "glob"].map((name) => ({
  name,
  description: `The ${name} tool. `.repeat(20),
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
}));
const messages: ChatMessage[] = [
  { role: "system", content: "You are a coding agent. ".repeat(300) },
  { role: "user", content: "Read every file under data/, one a turn." },
];
let trip = 0;
function addRoundTrip(): void {
  const id = `call_${trip}`;
  messages.push({
    role: "assistant",
    content: null,
    tool_calls: [{ id, name: "read", arguments: JSON.stringify({ path: `data/${trip}.txt` }) }],
    providerData: {
      origin,
      fields: {
        reasoning: [{
          type: "reasoning",
          id: `rs_${trip}`,
          summary: [],
          encrypted_content: "gAAAA" + "x".repeat(800),
        }],
      },
    },
  });
  messages.push({
    role: "tool",
    tool_call_id: id,
    content: `line ${trip} of the log\n`.repeat(OUTPUT_BYTES / 20),
  });
  trip++;
}
// The warm-up turns add theirs too: measuring starts at ROUND_TRIPS.
for (let index = 0; index < ROUND_TRIPS - WARM_UP - 1; index++) addRoundTrip();

for (let turn = 0; turn < WARM_UP + TURNS; turn++) {
  addRoundTrip();
  startedAt = performance.now();
  await provider.stream({ model: "gpt-5", messages, tools }, {});
}
const measured = costs.slice(WARM_UP);
const sizes = bodySizes.slice(WARM_UP);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const tenth = Math.max(1, Math.floor(measured.length / 10));
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
console.log(
  `${SRC}: ${measured.length} turns, history ${ROUND_TRIPS} to ${trip} round trips ` +
    `(body ${mb(sizes[0])} to ${mb(sizes.at(-1)!)}); median per turn ` +
    `${median(measured).toFixed(2)} ms (first ${tenth}: ${
      median(measured.slice(0, tenth)).toFixed(2)
    } ms, ` +
    `last ${tenth}: ${median(measured.slice(-tenth)).toFixed(2)} ms)`,
);
