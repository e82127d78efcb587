/**
 * What a server accepts in the history it is sent, beyond the Chat
 * Completions shape every server shares. The store keeps messages as they
 * were; a history is fitted to its server only on the wire (request_body.ts),
 * so a session begun on one provider continues on another.
 */

/**
 * "standard": as stored; "mistral": Mistral's rules (mistral.ts);
 * "deepseek": every assistant message with tool calls carries a
 * `reasoning_content`, empty when the message has none of DeepSeek's own
 * (a session begun elsewhere), since thinking mode refuses the field missing.
 * https://api-docs.deepseek.com/guides/thinking_mode#tool-calls
 * "openrouter": the history as stored; the reasoning effort goes in its
 * `reasoning` object (reasoning_effort.ts).
 */
export type Dialect = "standard" | "mistral" | "deepseek" | "openrouter";

/** The setting `provider.dialect`: a dialect, or "auto" to tell by the base URL's host. */
export type DialectSetting = Dialect | "auto";

/** Hosts whose dialect is known. */
const HOSTS: Record<string, Dialect> = {
  "api.mistral.ai": "mistral",
  "codestral.mistral.ai": "mistral",
  "api.deepseek.com": "deepseek",
  "openrouter.ai": "openrouter",
};

/**
 * The name fields from an endpoint are kept under (ProviderData.origin): its
 * base URL without credentials or query, which must never be stored.
 */
export function originOf(baseURL: string): string {
  const url = URL.parse(baseURL);
  if (!url) return baseURL;
  return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, "");
}

/** The dialect for an endpoint: the configured one, else the one its host is known to speak. */
export function dialectFor(baseURL: string, setting: DialectSetting = "auto"): Dialect {
  if (setting !== "auto") return setting;
  const host = URL.parse(baseURL)?.hostname.toLowerCase() ?? "";
  return HOSTS[host] ?? "standard";
}
