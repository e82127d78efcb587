/**
 * The model, behind one contract: `ChatProvider` (`types.ts`), a streamed
 * chat request with tool calls, usage and `ProviderError`s. The
 * OpenAI-compatible client (`openai_provider.ts`) posts Chat Completions
 * itself (`chat_post.ts`), builds each request from messages serialised
 * once (`request_body.ts`), assembles the stream (`stream_assembler.ts`),
 * retries what may be retried (`retry_policy.ts`) and turns a server's
 * refusal into words (`failure_message.ts`, `error_body.ts`). The Responses
 * API (`responses/`) is a second wire protocol behind the same contract;
 * `create_provider.ts` chooses it per model (and on the server's refusal)
 * and sends the key as the endpoint wants it. Model limits, prices and the
 * shared rate limiter of a batch are here too.
 */
export type { ChatProvider } from "./types.ts";
export { ProviderError } from "./types.ts";
export { createOpenAIProvider } from "./openai_provider.ts";
export { createProvider } from "./create_provider.ts";
