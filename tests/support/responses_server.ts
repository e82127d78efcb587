/**
 * A scripted server for OpenAI's Responses API (`POST /v1/responses`), in
 * its documented wire format, with the refusals the real one makes:
 *
 * - Streaming events, in the order OpenAI sends them
 *   (https://platform.openai.com/docs/api-reference/responses-streaming):
 *   `response.created`, `response.in_progress`, per output item
 *   `response.output_item.added` … `response.output_item.done` with
 *   `response.reasoning_summary_text.delta`, `response.output_text.delta`,
 *   `response.function_call_arguments.delta` / `.done` between, and
 *   `response.completed` carrying usage (`input_tokens_details.cached_tokens`,
 *   `output_tokens_details.reasoning_tokens`).
 * - Reasoning kept by the client (https://platform.openai.com/docs/guides/reasoning,
 *   "Encrypted reasoning items"): with `store: false` and
 *   `include: ["reasoning.encrypted_content"]` each reasoning item carries
 *   `encrypted_content`, and the client passes the item back. A reasoning
 *   item sent back without it names state the server did not keep: 404
 *   "Item with id 'rs_…' not found. Items are not persisted when `store` is
 *   set to false." Stricter than the real server (which only refuses a call
 *   sent with its `fc_` id but without its reasoning), a follow-up whose
 *   calls come without the reasoning that led to them is refused with the
 *   real server's words for that case (400 "Item 'fc_…' of type
 *   'function_call' was provided without its required 'reasoning' item").
 * - A function_call_output without its call: 400 "No tool call found for
 *   function call output with call_id …". A Chat Completions body sent here:
 *   400 "Unsupported parameter: 'messages'. In the Responses API, this
 *   parameter has moved to 'input'."
 * - `reasoning.effort` for a model without it (`acceptedEfforts`): 400
 *   "Unsupported parameter: 'reasoning.effort' is not supported with this
 *   model." (param `reasoning.effort`, OpenAI's words for the field;
 *   https://platform.openai.com/docs/guides/reasoning).
 * - `POST /v1/chat/completions` for a model served only on /responses: 404
 *   "This model is only supported in v1/responses and not in
 *   v1/chat/completions." (the text users quote, e.g.
 *   https://github.com/aaif-goose/goose/issues/2564).
 */

export interface ResponsesTurn {
  /** A reasoning item: its summary is streamed, its encrypted content made up. */
  reasoning?: string;
  text?: string;
  /**
   * Function calls; `namespace` names the tool group a call belongs to, as a
   * client that lists tools in namespaces (Codex's `mcp__<server>`) reads it.
   */
  toolCalls?: { name: string; arguments: Record<string, unknown>; namespace?: string }[];
}

export interface ResponsesServer {
  url: string;
  /** Bodies of the /v1/responses requests, in order (refused ones included). */
  requests: Record<string, unknown>[];
  /** Each request's headers, lower-case names: [path, headers]. */
  headers: [string, Record<string, string>][];
  /** Paths of every request, in order. */
  paths: string[];
  /** Refusals sent, as "status message". */
  refusals: string[];
  close(): Promise<void>;
}

export interface ResponsesServerOptions {
  /** The models this server has (others: 404 on both paths). @default all */
  knownModel?: (model: string) => boolean;
  /** Answers /v1/chat/completions itself (another test's script): `undefined` refuses. */
  chat?: (body: Record<string, unknown>) => Response | undefined;
  /** The headers every request must carry, else 401. */
  requireHeaders?: Record<string, string>;
  /** The `reasoning.effort` values the model takes; empty: none. @default any */
  acceptedEfforts?: readonly string[];
}

const encoder = new TextEncoder();

/** Start the server on 127.0.0.1 (a free port). Needs --allow-net. */
export function startResponsesServer(
  script: ResponsesTurn[],
  options: ResponsesServerOptions = {},
): ResponsesServer {
  const requests: Record<string, unknown>[] = [];
  const headers: [string, Record<string, string>][] = [];
  const paths: string[] = [];
  const refusals: string[] = [];
  // What this server issued: reasoning id → its encrypted content; call id → the reasoning before it.
  const issuedReasoning = new Map<string, string>();
  const reasoningOfCall = new Map<string, string>();
  const callItemIds = new Map<string, string>();
  let next = 0;
  let ids = 0;
  const id = (prefix: string) => `${prefix}_${(++ids).toString(16).padStart(8, "0")}`;

  const refuse = (status: number, message: string, param: string | null = null) => {
    refusals.push(`${status} ${message}`);
    return Response.json(
      { error: { message, type: "invalid_request_error", param, code: null } },
      { status },
    );
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    paths.push(path);
    headers.push([path, Object.fromEntries(request.headers)]);
    for (const [name, value] of Object.entries(options.requireHeaders ?? {})) {
      if (request.headers.get(name) !== value) {
        return Response.json({
          error: { message: "Access denied due to invalid subscription key.", code: "401" },
        }, { status: 401 });
      }
    }
    const body = await request.json().catch(() => ({})) as Record<string, unknown>;
    if (path === "/v1/chat/completions") {
      const answer = options.chat?.(body);
      if (answer) return answer;
      if (options.knownModel && !options.knownModel(String(body.model))) {
        return refuse(404, `The model '${body.model}' does not exist`, "model");
      }
      return refuse(
        404,
        "This model is only supported in v1/responses and not in v1/chat/completions.",
        "model",
      );
    }
    if (path !== "/v1/responses") return new Response("Not Found", { status: 404 });
    requests.push(body);
    if ("messages" in body) {
      return refuse(
        400,
        "Unsupported parameter: 'messages'. In the Responses API, this parameter has moved to 'input'. Try again with the new parameter.",
        "messages",
      );
    }
    if (options.knownModel && !options.knownModel(String(body.model))) {
      return refuse(404, `The model '${body.model}' does not exist`, "model");
    }
    const effort = (body.reasoning as { effort?: string } | undefined)?.effort;
    if (effort !== undefined && options.acceptedEfforts?.includes(effort) === false) {
      return refuse(
        400,
        options.acceptedEfforts.length
          ? `Unsupported value: 'reasoning.effort' does not support '${effort}' with this model. Supported values are: ${
            options.acceptedEfforts.map((value) => `'${value}'`).join(", ")
          }.`
          : "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        "reasoning.effort",
      );
    }
    const refusal = checkInput(body);
    if (refusal) return refusal;
    const turn = script[next++];
    if (!turn) return refuse(500, "the test script has no more turns");
    return new Response(stream(body, turn), {
      headers: { "content-type": "text/event-stream; charset=utf-8" },
    });
  });

  /** The real server's refusals of an input, or undefined when it is accepted. */
  function checkInput(body: Record<string, unknown>): Response | undefined {
    if (body.store !== false) return undefined; // the server would keep the state itself
    const input = Array.isArray(body.input) ? body.input as Record<string, unknown>[] : [];
    const sentReasoning = new Set<string>();
    const calls = new Set<string>();
    for (const item of input) {
      if (item.type === "reasoning") {
        const issued = issuedReasoning.get(String(item.id));
        if (!item.encrypted_content) {
          return refuse(
            404,
            `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            "input",
          );
        }
        if (issued !== item.encrypted_content) {
          return refuse(400, `The encrypted content for item ${item.id} could not be verified.`);
        }
        sentReasoning.add(String(item.id));
      }
      if (item.type === "function_call") {
        const call = String(item.call_id);
        const needed = reasoningOfCall.get(call);
        if (needed && !sentReasoning.has(needed)) {
          return refuse(
            400,
            `Item '${
              callItemIds.get(call)
            }' of type 'function_call' was provided without its required 'reasoning' item: '${needed}'.`,
            "input",
          );
        }
        calls.add(call);
      }
      if (item.type === "function_call_output" && !calls.has(String(item.call_id))) {
        return refuse(
          400,
          `No tool call found for function call output with call_id ${item.call_id}.`,
          "input",
        );
      }
    }
    return undefined;
  }

  /** The turn as OpenAI streams it. */
  function stream(body: Record<string, unknown>, turn: ResponsesTurn): ReadableStream<Uint8Array> {
    const responseId = id("resp");
    let sequence = 0;
    const events: string[] = [];
    const send = (type: string, fields: Record<string, unknown>) => {
      const data = JSON.stringify({ type, sequence_number: sequence++, ...fields });
      events.push(`event: ${type}\ndata: ${data}\n\n`);
    };
    const shell = (status: string, extra: Record<string, unknown> = {}) => ({
      id: responseId,
      object: "response",
      created_at: 1_765_000_000,
      status,
      model: body.model,
      output: [] as unknown[],
      store: false,
      ...extra,
    });
    send("response.created", { response: shell("in_progress") });
    send("response.in_progress", { response: shell("in_progress") });
    const output: Record<string, unknown>[] = [];
    let reasoningId: string | undefined;
    if (turn.reasoning !== undefined) {
      reasoningId = id("rs");
      const encrypted = `gAAAA${btoa(`${reasoningId}:${turn.reasoning}`)}`;
      issuedReasoning.set(reasoningId, encrypted);
      const index = output.length;
      send("response.output_item.added", {
        output_index: index,
        item: { id: reasoningId, type: "reasoning", summary: [] },
      });
      const part = { type: "summary_text", text: "" };
      send("response.reasoning_summary_part.added", {
        item_id: reasoningId,
        output_index: index,
        summary_index: 0,
        part,
      });
      for (const piece of pieces(turn.reasoning)) {
        send("response.reasoning_summary_text.delta", {
          item_id: reasoningId,
          output_index: index,
          summary_index: 0,
          delta: piece,
        });
      }
      send("response.reasoning_summary_text.done", {
        item_id: reasoningId,
        output_index: index,
        summary_index: 0,
        text: turn.reasoning,
      });
      const item = {
        id: reasoningId,
        type: "reasoning",
        summary: [{ type: "summary_text", text: turn.reasoning }],
        encrypted_content: encrypted,
      };
      send("response.output_item.done", { output_index: index, item });
      output.push(item);
    }
    if (turn.text !== undefined) {
      const itemId = id("msg");
      const index = output.length;
      send("response.output_item.added", {
        output_index: index,
        item: {
          id: itemId,
          type: "message",
          status: "in_progress",
          role: "assistant",
          content: [],
        },
      });
      send("response.content_part.added", {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (const piece of pieces(turn.text)) {
        send("response.output_text.delta", {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          delta: piece,
          logprobs: [],
        });
      }
      send("response.output_text.done", {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        text: turn.text,
        logprobs: [],
      });
      const part = { type: "output_text", text: turn.text, annotations: [] };
      send("response.content_part.done", {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        part,
      });
      const item = {
        id: itemId,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [part],
      };
      send("response.output_item.done", { output_index: index, item });
      output.push(item);
    }
    for (const call of turn.toolCalls ?? []) {
      const itemId = id("fc");
      const callId = id("call");
      callItemIds.set(callId, itemId);
      if (reasoningId) reasoningOfCall.set(callId, reasoningId);
      const index = output.length;
      const args = JSON.stringify(call.arguments);
      const item = {
        id: itemId,
        type: "function_call",
        status: "in_progress",
        arguments: "",
        call_id: callId,
        name: call.name,
        ...(call.namespace ? { namespace: call.namespace } : {}),
      };
      send("response.output_item.added", { output_index: index, item });
      for (const piece of pieces(args)) {
        send("response.function_call_arguments.delta", {
          item_id: itemId,
          output_index: index,
          delta: piece,
        });
      }
      send("response.function_call_arguments.done", {
        item_id: itemId,
        output_index: index,
        arguments: args,
      });
      const done = { ...item, status: "completed", arguments: args };
      send("response.output_item.done", { output_index: index, item: done });
      output.push(done);
    }
    send("response.completed", {
      response: shell("completed", {
        output,
        usage: {
          input_tokens: 1200,
          input_tokens_details: { cached_tokens: 1024 },
          output_tokens: 300,
          output_tokens_details: { reasoning_tokens: 256 },
          total_tokens: 1500,
        },
      }),
    });
    let at = 0;
    return new ReadableStream({
      pull(controller) {
        if (at < events.length) controller.enqueue(encoder.encode(events[at++]));
        else controller.close();
      },
    });
  }

  const address = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    headers,
    paths,
    refusals,
    close: () => server.shutdown(),
  };
}

/** A text in a few pieces, as a model streams it. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
