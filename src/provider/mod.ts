/**
 * The model, behind one contract: `ChatProvider` (`types.ts`), a streamed
 * chat request with tool calls, reasoning, usage and `ProviderError`s.
 * `create_provider.ts` makes the session's client: which wire protocol each
 * model is spoken to in, and how the key is sent (`auth_headers.ts`).
 *
 * - `openai_provider.ts`: the client both wires share: retries
 *   (`retry_policy.ts`), timeouts, a refusal turned into words
 *   (`failure_message.ts`, `error_body.ts`), usage and cost (`cost.ts`,
 *   `prices.ts`).
 * - `chat/`: Chat Completions on the wire: the post (`chat_post.ts`), the
 *   body from messages serialised once (`request_body.ts`), the stream
 *   assembled (`stream_assembler.ts`).
 * - `responses/`: the Responses API, translated to and from the same shapes.
 * - `dialects/`: what each server and model family needs: the history rules
 *   and the fields sent back to the server that wrote them (`dialect.ts`,
 *   `mistral.ts`, `reasoning_details.ts`), per-model settings
 *   (`model_settings.ts`, `model_families.ts`), tool schemas a server accepts
 *   (`schema_dialect.ts`), tool calls a model wrote as text
 *   (`text_tool_calls.ts`) and the reasoning effort (`reasoning_effort.ts`),
 *   applied around the client by `model_dialect.ts`.
 * - `refused_fields.ts`: optional fields a server refused for a model, left
 *   out from then on, for both protocols.
 *
 * Model limits, the endpoint probes (`connect_probe.ts`, `endpoint_probe.ts`)
 * and the shared rate limiter of a batch are here too.
 */
export type { ChatProvider } from "./types.ts";
export { ProviderError } from "./types.ts";
export { createOpenAIProvider } from "./openai_provider.ts";
export { createProvider } from "./create_provider.ts";
