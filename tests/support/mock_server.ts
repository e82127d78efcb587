/**
 * A scripted OpenAI-compatible server for tests and benchmarks. Each POST to
 * /v1/chat/completions consumes the next turn of the script and answers it in
 * the real wire format (SSE chunks when `stream: true`, one JSON object
 * otherwise), so the code under test runs its real HTTP client against it.
 *
 * In-process: `const mock = startMockServer([{ text: "hi" }]); … mock.close()`.
 * From another process: `deno run -A tests/support/mock_server.ts script.json
 * [--record requests.jsonl]` prints the base URL as its first stdout line and
 * serves until killed; `--record` appends every request body as a JSON line.
 */

export interface MockUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  /** Sent as prompt_tokens_details.cached_tokens, as OpenAI reports its prompt cache. */
  cached_tokens?: number;
}

export interface MockToolCall {
  name: string;
  /** An object is serialised; a string is sent verbatim (even if not valid JSON). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

interface TurnOptions {
  /** Wait this long before answering (headers included). */
  delayMs?: number;
  /** Replace the computed usage; `null` sends no usage at all. */
  usage?: MockUsage | null;
  /**
   * Replace the finish_reason ("length" for a model that ran out of output
   * tokens); `null` streams none at all, ending with [DONE] alone, as some servers do.
   */
  finishReason?: string | null;
  /** How the stream is framed, for the habits of real servers. Streamed answers only. */
  wire?: MockWire;
}

/** Quirks of real servers' event streams; each is off unless set. */
export interface MockWire {
  /** Line ending of the event stream. @default "\n" */
  lineEnding?: "\n" | "\r\n";
  /** A `: ping` comment before every event, as servers send to keep a connection alive. */
  keepAlive?: boolean;
  /** Repeat the function name in every fragment of a tool call (the id stays in the first). */
  repeatToolNames?: boolean;
  /** Send each call's arguments as a JSON object instead of a string, in one fragment. */
  objectArguments?: boolean;
  /** Wait this long before each event after the first, as a model writing its answer piece by piece. */
  eventDelayMs?: number;
  /** Send each tool call whole in one fragment with neither `index` nor `id`. */
  bareCalls?: boolean;
  /** Stream tool calls in the legacy `function_call` delta (one call only), finishing "function_call". */
  legacyFunctionCall?: boolean;
  /**
   * After the text, nothing more: the stream stays open (no finish, no [DONE])
   * until the client goes away, as a model that stalls mid-answer.
   */
  stall?: boolean;
  /** Answer with one JSON completion although a stream was asked for, as some proxies do. */
  ignoreStream?: boolean;
  /**
   * After the text, an error object inside the 200 stream (`data: {"error": …}`),
   * then the stream ends without a finish or [DONE].
   */
  error?: unknown;
  /**
   * How `error` is sent: alone (`bare`, OpenAI's way), in a whole chunk
   * beside a choice finished with "error" (`openrouter`), or only inside
   * that choice (`choice`). @default "bare"
   */
  errorShape?: "bare" | "openrouter" | "choice";
}

export type MockTurn =
  & TurnOptions
  & (
    | { text: string; toolCalls?: undefined; status?: undefined; cut?: undefined; hang?: undefined }
    | {
      toolCalls: MockToolCall[];
      text?: string;
      status?: undefined;
      cut?: undefined;
      hang?: undefined;
    }
    | {
      status: number;
      /** Seconds (number) or an HTTP date (string), sent as the Retry-After header. */
      retryAfter?: number | string;
      /** Response body; an object is sent as JSON. Default: an OpenAI-style error. */
      body?: unknown;
      /** Content-Type of a string body ("text/html" for a web page). */
      contentType?: string;
      text?: undefined;
      toolCalls?: undefined;
      cut?: undefined;
      hang?: undefined;
    }
    /** Streams about half of `text`, then drops the connection: no finish_reason, no [DONE]. */
    | { cut: true; text: string; toolCalls?: undefined; status?: undefined; hang?: undefined }
    /** Never answers; the request stays open until the client gives up or the server closes. */
    | { hang: true; text?: undefined; toolCalls?: undefined; status?: undefined; cut?: undefined }
  );

export interface MockServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:41234/v1 */
  url: string;
  /** Parsed JSON bodies of every chat completion request received, in order. */
  requests: Record<string, unknown>[];
  /** The HTTP headers of each of those requests (lower-case names), same order. */
  headers: Record<string, string>[];
  close(): Promise<void>;
}

export interface MockServerOptions {
  /** Called with every chat completion request body as it arrives. */
  onRequest?(body: Record<string, unknown>): void;
  /**
   * Answers computed from each request instead of read from the script (a
   * long scripted session whose summary requests come at no fixed place):
   * called with the request body and its 0-based number; undefined falls
   * back to the script.
   */
  respond?(body: Record<string, unknown>, index: number): MockTurn | undefined;
  /**
   * Called as each chat completion request arrives, before its body is read:
   * a bench times the client's side without the mock's own parsing.
   */
  onArrival?(): void;
  port?: number;
  /** The ids `GET /v1/models` lists. @default ["mock-model"] */
  models?: string[];
}

const MODEL_FALLBACK = "mock-model";
const encoder = new TextEncoder();

/** Start the server on 127.0.0.1 (a free port unless `options.port`). Needs --allow-net. */
export function startMockServer(script: MockTurn[], options: MockServerOptions = {}): MockServer {
  const requests: Record<string, unknown>[] = [];
  const headers: Record<string, string>[] = [];
  const closing = new AbortController();
  let next = 0;
  let chunkCounter = 0;

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method === "GET" && path === "/v1/models") {
        return json(200, {
          object: "list",
          data: (options.models ?? [MODEL_FALLBACK]).map((id) => ({
            id,
            object: "model",
            created: 0,
            owned_by: "mock",
          })),
        });
      }
      if (request.method !== "POST" || path !== "/v1/chat/completions") {
        return json(404, errorBody(`mock server: no route for ${request.method} ${path}`));
      }
      options.onArrival?.();
      let body: Record<string, unknown>;
      try {
        body = await request.json();
      } catch {
        return json(400, errorBody("mock server: request body is not JSON"));
      }
      requests.push(body);
      headers.push(Object.fromEntries(request.headers));
      options.onRequest?.(body);

      const turn = options.respond?.(body, requests.length - 1) ?? script[next++];
      if (turn === undefined) {
        return json(
          500,
          errorBody(
            `mock script exhausted: request ${requests.length} arrived but the script has ` +
              `only ${script.length} turn(s)`,
          ),
        );
      }
      // Not request.signal: Deno's legacy behaviour aborts it after every response.
      const gone = closing.signal;
      if (turn.delayMs) await wait(turn.delayMs, gone);
      if (turn.hang) {
        await wait(Number.POSITIVE_INFINITY, gone);
        return json(503, errorBody("mock server closed while hanging"));
      }
      if (turn.status !== undefined) return statusResponse(turn);

      const id = `chatcmpl-mock-${++chunkCounter}`;
      const model = typeof body.model === "string" ? body.model : MODEL_FALLBACK;
      const usage = turn.usage === undefined ? estimateUsage(body, turn) : turn.usage;
      if (body.stream !== true || turn.wire?.ignoreStream) {
        return json(200, completionBody(id, model, turn, usage));
      }
      const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
      const events = streamEvents(id, model, turn, streamOptions?.include_usage ? usage : null);
      return sseResponse(events, turn.cut === true, gone, turn.wire);
    },
  );

  const address = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    headers,
    async close() {
      closing.abort();
      await server.shutdown();
    },
  };
}

function errorBody(message: string, type = "mock_error") {
  return { error: { message, type, code: null, param: null } };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function statusResponse(
  turn: { status: number; retryAfter?: number | string; body?: unknown; contentType?: string },
) {
  const headers: Record<string, string> = {};
  if (turn.retryAfter !== undefined) headers["retry-after"] = String(turn.retryAfter);
  if (turn.contentType !== undefined) headers["content-type"] = turn.contentType;
  if (typeof turn.body === "string") {
    return new Response(turn.body, { status: turn.status, headers });
  }
  const body = turn.body ?? errorBody(`mock error ${turn.status}`, "server_error");
  return json(turn.status, body, headers);
}

/** Resolve after `ms`, or as soon as `signal` aborts. Never rejects. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener("abort", done, { once: true });
  });
}

function argumentsText(call: MockToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

function toolCallId(call: MockToolCall, index: number): string {
  return call.id ?? `call_mock_${index}`;
}

/**
 * Deterministic token counts (about four characters a token) so tests can
 * assert them. The prompt counts the tool schemas too, as real servers do.
 */
function estimateUsage(body: Record<string, unknown>, turn: MockTurn): MockUsage {
  const sent = body.tools
    ? { messages: body.messages ?? [], tools: body.tools }
    : body.messages ?? [];
  const prompt = Math.ceil(JSON.stringify(sent).length / 4);
  const produced = (turn.text ?? "") + (turn.toolCalls ?? []).map(argumentsText).join("");
  return { prompt_tokens: prompt, completion_tokens: Math.ceil(produced.length / 4) };
}

function wireUsage(usage: MockUsage) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
    ...(usage.cached_tokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } }
      : {}),
  };
}

function finishReason(turn: MockTurn): string | null {
  if (turn.finishReason !== undefined) return turn.finishReason;
  if (turn.toolCalls?.length && turn.wire?.legacyFunctionCall) return "function_call";
  return turn.toolCalls?.length ? "tool_calls" : "stop";
}

function completionBody(id: string, model: string, turn: MockTurn, usage: MockUsage | null) {
  const toolCalls = turn.toolCalls?.map((call, index) => ({
    id: toolCallId(call, index),
    type: "function",
    function: { name: call.name, arguments: argumentsText(call) },
  }));
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: turn.text ?? null,
        ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
      },
      finish_reason: finishReason(turn),
    }],
    ...(usage ? { usage: wireUsage(usage) } : {}),
  };
}

/** Split text into small pieces so clients see real incremental deltas. */
function pieces(text: string, size = 4): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** The data payloads of one streamed answer, in order; `[DONE]` included unless cut. */
function streamEvents(
  id: string,
  model: string,
  turn: MockTurn,
  usage: MockUsage | null,
): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

  const text = turn.text ?? "";
  const events = [chunk({ role: "assistant", content: "" })];
  if (turn.cut) {
    for (const piece of pieces(text.slice(0, Math.ceil(text.length / 2)))) {
      events.push(chunk({ content: piece }));
    }
    return events;
  }
  for (const piece of pieces(text)) events.push(chunk({ content: piece }));
  const wire = turn.wire ?? {};
  if (wire.stall) return events;
  if (wire.error !== undefined) {
    const failed = { index: 0, delta: { content: "" }, finish_reason: "error" };
    const shaped = wire.errorShape === "openrouter"
      ? {
        id,
        object: "chat.completion.chunk",
        created,
        model,
        error: wire.error,
        choices: [failed],
      }
      : wire.errorShape === "choice"
      ? {
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ ...failed, error: wire.error }],
      }
      : { error: wire.error };
    events.push(JSON.stringify(shaped));
    return events;
  }
  turn.toolCalls?.forEach((call, index) => {
    if (wire.legacyFunctionCall) {
      events.push(chunk({ function_call: { name: call.name, arguments: "" } }));
      for (const piece of pieces(argumentsText(call), 7)) {
        events.push(chunk({ function_call: { arguments: piece } }));
      }
      return;
    }
    if (wire.bareCalls) {
      events.push(chunk({
        tool_calls: [{
          type: "function",
          function: { name: call.name, arguments: argumentsText(call) },
        }],
      }));
      return;
    }
    if (wire.objectArguments) {
      events.push(chunk({
        tool_calls: [{
          index,
          id: toolCallId(call, index),
          type: "function",
          function: { name: call.name, arguments: JSON.parse(argumentsText(call)) },
        }],
      }));
      return;
    }
    events.push(chunk({
      tool_calls: [{
        index,
        id: toolCallId(call, index),
        type: "function",
        function: { name: call.name, arguments: "" },
      }],
    }));
    for (const piece of pieces(argumentsText(call), 7)) {
      const fn = wire.repeatToolNames
        ? { name: call.name, arguments: piece }
        : { arguments: piece };
      events.push(chunk({ tool_calls: [{ index, function: fn }] }));
    }
  });
  const finish = finishReason(turn);
  if (finish !== null) events.push(chunk({}, finish));
  if (usage) {
    events.push(JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [],
      usage: wireUsage(usage),
    }));
  }
  events.push("[DONE]");
  return events;
}

/**
 * Serve SSE events. When `cut`, the body stream errors after the last event,
 * which makes the server abort the connection mid-body (no terminating chunk).
 */
function sseResponse(
  events: string[],
  cut: boolean,
  gone: AbortSignal,
  wire: MockWire = {},
): Response {
  let index = 0;
  const eol = wire.lineEnding ?? "\n";
  const ping = wire.keepAlive ? `: ping${eol}${eol}` : "";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (gone.aborted) return controller.close();
      if (index < events.length) {
        if (wire.eventDelayMs && index > 0) await wait(wire.eventDelayMs, gone);
        controller.enqueue(encoder.encode(`${ping}data: ${events[index++]}${eol}${eol}`));
        return;
      }
      if (wire.stall) {
        await new Promise((resolve) => gone.addEventListener("abort", resolve, { once: true }));
        return controller.close();
      }
      if (cut) {
        // Give the client time to receive what was sent before the connection dies.
        await wait(30, gone);
        // Deno logs this error to stderr; it is expected whenever a test scripts a cut.
        controller.error(
          new Error("mock server: {cut: true} turn dropped the connection (expected)"),
        );
      } else {
        controller.close();
      }
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

async function main(args: string[]): Promise<void> {
  const [scriptPath, ...rest] = args;
  if (!scriptPath) {
    console.error(
      "usage: deno run -A tests/support/mock_server.ts <script.json> [--record <file.jsonl>]",
    );
    Deno.exit(2);
  }
  const script = JSON.parse(await Deno.readTextFile(scriptPath)) as MockTurn[];
  if (!Array.isArray(script)) {
    console.error(`${scriptPath}: the script must be a JSON array of turns`);
    Deno.exit(2);
  }
  const recordAt = rest.indexOf("--record");
  const recordPath = recordAt >= 0 ? rest[recordAt + 1] : undefined;
  const mock = startMockServer(script, {
    onRequest: (body) => {
      if (recordPath) {
        Deno.writeTextFileSync(recordPath, JSON.stringify(body) + "\n", { append: true });
      }
    },
  });
  console.log(mock.url);
  Deno.addSignalListener("SIGTERM", () => mock.close().then(() => Deno.exit(0)));
}

if (import.meta.main) await main(Deno.args);
