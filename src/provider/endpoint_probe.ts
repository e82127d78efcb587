/**
 * What an endpoint does with one model, found with the fewest requests
 * (`skiff doctor --model`): which wire protocol answers, whether a tool call
 * comes back structured or as text (one tiny streamed request offering one
 * tool), whether reasoning streams, and the context window when the server
 * lists it. Needs --allow-net for the endpoint's host; `fetch` is injected.
 */
import { readTextToolCalls, type TextToolCallReading } from "./dialects/text_tool_calls.ts";
import type { ToolSchema } from "./types.ts";

export interface EndpointProbe {
  /** Chat Completions answered (a status), or why no request got through. */
  chat: { status: number; refusal?: string } | { error: string };
  /** Asked only when Chat Completions is not found: whether POST /responses answers. */
  responses?: { status: number };
  /** How the probe's tool call came back; undefined when the request failed. */
  toolCalls?:
    | { kind: "structured" }
    | { kind: "text"; reading: TextToolCallReading; sample: string }
    | { kind: "none"; sample: string };
  /** The stream's reasoning field, when one carried text (`reasoning_content`, `reasoning`). */
  reasoningField?: string;
  /** The window the server lists for the model, and the field that said it. */
  context?: { tokens: number; field: string };
}

export interface EndpointProbeOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Per request. @default 60000 */
  timeoutMs?: number;
}

/** The one tool offered: trivially easy to call, so a model that can call tools does. */
export const PROBE_TOOL: ToolSchema = {
  name: "get_time",
  description: "Returns the current time in a time zone.",
  parameters: {
    type: "object",
    properties: { zone: { type: "string", description: "an IANA time zone, e.g. UTC" } },
    required: ["zone"],
  },
};

const PROBE_PROMPT = "What time is it in UTC? Use the get_time tool; do not answer from memory.";

/** Fields servers put a model's window in, on its /models entry. */
const WINDOW_FIELDS: Array<[string, (entry: Record<string, unknown>) => unknown]> = [
  ["max_model_len", (entry) => entry.max_model_len], // vLLM
  ["context_length", (entry) => entry.context_length], // OpenRouter
  ["context_window", (entry) => entry.context_window], // Groq and others
  ["max_context_length", (entry) => entry.max_context_length], // LM Studio's /api/v0
  ["loaded_context_length", (entry) => entry.loaded_context_length], // LM Studio's /api/v0
  ["meta.n_ctx_train", (entry) => (entry.meta as Record<string, unknown> | undefined)?.n_ctx_train], // llama.cpp
];

/** Probes `model` at `baseURL`. Never throws for what the server says; the answer says it. */
export async function probeEndpoint(options: EndpointProbeOptions): Promise<EndpointProbe> {
  const base = options.baseURL.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const headers = {
    "content-type": "application/json",
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...options.headers,
  };
  const signal = () => AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const probe: EndpointProbe = { chat: { error: "not asked" } };

  const context = await listedWindow(doFetch, base, options.model, headers, signal()).catch(() =>
    undefined
  );
  if (context) probe.context = context;

  let response: Response;
  try {
    response = await doFetch(`${base}/chat/completions`, {
      method: "POST",
      headers,
      signal: signal(),
      body: JSON.stringify({
        model: options.model,
        stream: true,
        messages: [{ role: "user", content: PROBE_PROMPT }],
        tools: [{ type: "function", function: PROBE_TOOL }],
      }),
    });
  } catch (error) {
    probe.chat = { error: (error as Error).message };
    return probe;
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    probe.chat = { status: response.status, refusal: refusalText(text) };
    if (response.status === 404 || response.status === 405) {
      probe.responses = await responsesAnswer(doFetch, base, options.model, headers, signal());
    }
    return probe;
  }
  probe.chat = { status: response.status };
  const answer = await readAnswer(response);
  if (answer.reasoningField) probe.reasoningField = answer.reasoningField;
  if (answer.calls) probe.toolCalls = { kind: "structured" };
  else {
    const reading = readTextToolCalls(answer.text, "auto", [PROBE_TOOL]);
    const sample = answer.text.trim().slice(0, 200);
    probe.toolCalls = reading.kind === "none"
      ? { kind: "none", sample }
      : { kind: "text", reading, sample };
  }
  return probe;
}

async function listedWindow(
  doFetch: typeof fetch,
  base: string,
  model: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<EndpointProbe["context"]> {
  const response = await doFetch(`${base}/models`, { headers, signal });
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const body = await response.json() as { data?: Record<string, unknown>[] };
  const entry = body.data?.find((item) => item.id === model);
  if (!entry) return undefined;
  for (const [field, read] of WINDOW_FIELDS) {
    const value = read(entry);
    if (typeof value === "number" && value > 0) return { tokens: value, field };
  }
  return undefined;
}

async function responsesAnswer(
  doFetch: typeof fetch,
  base: string,
  model: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ status: number } | undefined> {
  try {
    const response = await doFetch(`${base}/responses`, {
      method: "POST",
      headers,
      signal,
      body: JSON.stringify({ model, input: "Say ok.", store: false }),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch {
    return undefined;
  }
}

/** The message of an error body in the shapes servers use, else its start. */
function refusalText(text: string): string {
  try {
    const body = JSON.parse(text);
    const error = body?.error ?? body;
    const message = typeof error === "string" ? error : error?.message ?? body?.message;
    if (typeof message === "string") return message.slice(0, 300);
  } catch {
    // Not JSON: its first words.
  }
  return text.trim().slice(0, 300);
}

/** The answer's text, whether a call came structured, and which reasoning field streamed. */
async function readAnswer(
  response: Response,
): Promise<{ text: string; calls: boolean; reasoningField?: string }> {
  const body = await response.text();
  const chunks: Record<string, unknown>[] = [];
  if (/^\s*\{/.test(body)) chunks.push(JSON.parse(body)); // a server that ignored `stream`
  else {
    for (const line of body.split(/\r?\n/)) {
      const data = /^data:\s?(.*)$/.exec(line)?.[1];
      if (!data || data === "[DONE]") continue;
      try {
        chunks.push(JSON.parse(data));
      } catch {
        // A line of another kind: skipped.
      }
    }
  }
  let text = "";
  let calls = false;
  let reasoningField: string | undefined;
  for (const chunk of chunks) {
    const choice = (chunk.choices as Record<string, unknown>[] | undefined)?.[0];
    const delta = (choice?.delta ?? choice?.message) as Record<string, unknown> | undefined;
    if (!delta) continue;
    if (typeof delta.content === "string") text += delta.content;
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length) calls = true;
    if (delta.function_call) calls = true;
    for (const field of ["reasoning_content", "reasoning", "reasoning_details"]) {
      const value = delta[field];
      if ((typeof value === "string" && value) || (Array.isArray(value) && value.length)) {
        reasoningField ??= field;
      }
    }
  }
  return { text, calls, ...(reasoningField ? { reasoningField } : {}) };
}
