/**
 * Makes a failed response's body readable by the client library, which only
 * keeps the `error` field of a JSON body. Servers answer errors in many
 * shapes — plain text, an HTML page from a proxy, `{"detail": …}`,
 * `{"message": …}` — and the user should read what the server said whatever
 * the shape, so such bodies are rewritten as `{"error": {"message": …}}`.
 */

/** Longest server explanation kept; a whole HTML page or stack trace helps no one. */
const MAX_LENGTH = 300;

/** Wrap fetch so that error bodies in any shape come out OpenAI-shaped. */
export function withReadableErrors(base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok || !response.body) return response;
    const text = await response.text();
    const message = explainErrorBody(text);
    const upstream = message === undefined ? withUpstreamMessage(text) : undefined;
    const body = upstream ??
      (message === undefined ? text : JSON.stringify({ error: { message } }));
    const headers = new Headers(response.headers);
    if (message !== undefined) headers.set("content-type", "application/json");
    headers.delete("content-length");
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/**
 * The server's explanation in `text`, or undefined when the library reads it
 * already (an `error` field) or there is nothing to read.
 */
export function explainErrorBody(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    return shorten(/^\s*</.test(trimmed) ? htmlText(trimmed) : trimmed);
  }
  if (typeof data === "string") return shorten(data);
  // Google's endpoints answer an error as a one-element array of the error object.
  if (Array.isArray(data) && typeof data[0]?.error?.message === "string") {
    return shorten(data[0].error.message);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return shorten(trimmed);
  const record = data as Record<string, unknown>;
  if (record.error !== undefined && record.error !== null) return undefined;
  for (const key of ["detail", "message", "msg", "error_message"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return shorten(value);
    // FastAPI's validation errors: [{ loc, msg, type }, …]
    if (Array.isArray(value) && value.length) {
      const parts = value.map((item) =>
        typeof item === "object" && item !== null && typeof item.msg === "string"
          ? item.msg
          : JSON.stringify(item)
      );
      return shorten(parts.join("; "));
    }
  }
  return shorten(trimmed);
}

/**
 * A router's error that carries the upstream server's own words (OpenRouter:
 * `error.metadata.raw`, with `provider_name`) rewritten so that they are in
 * `error.message`, which is all the user is shown; undefined for any other body.
 * https://openrouter.ai/docs/api-reference/errors
 */
export function withUpstreamMessage(text: string): string | undefined {
  let data: { error?: { message?: unknown; metadata?: Record<string, unknown> } };
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = data?.error;
  const raw = error?.metadata?.raw;
  if (!error || typeof error !== "object" || raw === undefined || raw === null) return undefined;
  const rawText = typeof raw === "string" ? raw : JSON.stringify(raw);
  const said = (typeof raw === "string" ? explainErrorBody(rawText) : undefined) ??
    innerMessage(rawText) ?? shorten(rawText);
  const provider = error.metadata?.provider_name;
  const from = typeof provider === "string" && provider ? `${provider} said` : "upstream";
  const own = typeof error.message === "string" ? error.message : "error";
  return JSON.stringify({ ...data, error: { ...error, message: `${own} (${from}: ${said})` } });
}

/** `error.message` of a JSON error body, the one shape explainErrorBody leaves to the library. */
function innerMessage(text: string): string | undefined {
  try {
    const message = JSON.parse(text)?.error?.message;
    return typeof message === "string" ? shorten(message) : undefined;
  } catch {
    return undefined;
  }
}

/** The readable text of an HTML page: no head, scripts or styles, tags dropped. */
function htmlText(html: string): string {
  return html
    .replace(/<(head|script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LENGTH ? `${flat.slice(0, MAX_LENGTH - 3)}...` : flat;
}
