/**
 * The webfetch tool: GET one URL and return it as markdown, plain text or raw
 * HTML. Redirects are followed by hand, at most five, and each new URL is a
 * new request put to the permission gate (`ctx.authorize`) before it is
 * fetched, so an allowed host cannot send the call somewhere no rule allows.
 * Every hop's host is resolved first, and a hop that reaches a local
 * address (loopback, private, link-local, the machine's own) is put to the
 * gate marked so: only a rule naming its host and port, or a person, opens
 * it (`_fetch_target.ts`). The body is read as a stream and abandoned past
 * 5 MB, and the fetch function comes from the context, so tests never
 * leave the machine.
 */
import * as z from "zod";
import { htmlToMarkdown, htmlToText } from "./_html.ts";
import { proxyConfigured } from "../../provider/connect_probe.ts";
import {
  localByText,
  type PinnedClient,
  pinnedClient,
  resolveTarget,
  systemResolver,
} from "./_fetch_target.ts";
import { type Access, defineTool, type ToolContext, ToolError } from "../tool.ts";

export const MAX_REDIRECTS = 5;
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
export const MAX_FETCH_TIMEOUT_MS = 120_000;

const schema = z.lazy(() =>
  z.object({
    url: z.string().describe("The http:// or https:// URL to fetch."),
    format: z.enum(["markdown", "text", "html"]).describe(
      "markdown: the page converted to markdown (best for reading docs); text: the words only; html: the raw document.",
    ),
    timeout_ms: z.number().int().positive().max(MAX_FETCH_TIMEOUT_MS).optional().describe(
      `Give up after this many milliseconds (default ${DEFAULT_FETCH_TIMEOUT_MS}, at most ${MAX_FETCH_TIMEOUT_MS}).`,
    ),
  })
);

export const webfetchTool = defineTool({
  name: "webfetch",
  description: [
    "Fetch a web page or file by URL (GET) and return its content, for documentation, API references, issues and the like.",
    "- HTML pages are converted to markdown unless format says otherwise; other text is returned as it is.",
    "- Redirects are followed up to 5 times, each new URL checked against the permission rules like a new call; bodies over 5 MB are refused; long results are cut with the full text saved to a file.",
  ].join("\n"),
  schema,
  declare(input) {
    const url = parseUrl(input.url);
    return fetchAccess(url, localByText(url));
  },
  async execute(input, ctx) {
    const timeoutMs = input.timeout_ms ?? DEFAULT_FETCH_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const clients: PinnedClient[] = [];
    try {
      const { response, url } = await follow(parseUrl(input.url), ctx, signal, clients);
      const type = response.headers.get("content-type") ?? "";
      const bytes = await readCapped(response, signal);
      const content = await render(bytes, type, input.format, url.href);
      return {
        output: content,
        title: `${url.href} (${type.split(";")[0] || "unknown type"}, ${bytes.length} bytes)`,
        metadata: {
          url: url.href,
          status: response.status,
          contentType: type,
          bytes: bytes.length,
        },
      };
    } catch (error) {
      if (timeout.aborted && !ctx.signal.aborted) {
        throw new ToolError(
          "timeout",
          `Fetching ${input.url} took longer than ${timeoutMs} ms.`,
          "Try again with a larger timeout_ms (at most 120000), or a smaller page.",
        );
      }
      if (error instanceof Deno.errors.NotCapable) {
        throw new ToolError(
          "not_capable",
          `This session may not reach ${input.url}: ${error.message}`,
          "The network permission does not include this host; the user can allow webfetch for it.",
        );
      }
      if (error instanceof TypeError) {
        throw new ToolError(
          "failed",
          `Could not fetch ${input.url}: ${error.message}`,
          "Check the address; the host may be down or unreachable from here.",
        );
      }
      throw error;
    } finally {
      for (const client of clients) client.close();
    }
  },
});

/**
 * What fetching `url` touches. "Always" approves the URL's origin
 * (`https://docs.example/*`): a pattern made of the URL itself would read
 * any `*` in it as a wildcard.
 */
function fetchAccess(url: URL, local: string | null): Access {
  return {
    key: "webfetch",
    patterns: [url.href],
    hosts: [url.host],
    always: [`${url.origin}/*`],
    preview: local ? `GET ${url.href}\n(${local})` : `GET ${url.href}`,
    ...(local ? { local } : {}),
  };
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolError(
      "bad_input",
      `"${raw}" is not a valid URL.`,
      "Give a full URL such as https://example.com/page.",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(
      "bad_input",
      `Only http and https URLs can be fetched, not ${url.protocol}`,
      "Give an http:// or https:// URL.",
    );
  }
  return url;
}

/**
 * Fetch `start`, following redirects by hand. Each hop's host is resolved
 * and judged before it is connected to: the first hop's declared access was
 * judged with the call (a literal local address or `localhost` marked
 * there), so only a name that turns out local is put to the gate again;
 * every later hop is put to the gate whole. `clients` collects the pinned
 * clients, for the caller to close once the body is read.
 */
async function follow(
  start: URL,
  ctx: ToolContext,
  signal: AbortSignal,
  clients: PinnedClient[],
) {
  const resolve = ctx.resolveHost ?? systemResolver;
  const proxied = proxyConfigured();
  let url = start;
  let target = await resolveTarget(url, resolve, signal, { proxied });
  if (target.local && !localByText(url)) await authorizeLocal(url, target.local, ctx);
  for (let hop = 0;; hop++) {
    const pinned = pinnedClient(url, target, proxied);
    if (pinned) clients.push(pinned);
    const response = await ctx.fetch(url, {
      redirect: "manual",
      signal,
      headers: { "accept": "text/html, text/markdown, text/plain, */*;q=0.8" },
      ...(pinned ? { client: pinned.client } : {}),
    });
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new ToolError(
          "failed",
          `${start.href} redirected more than ${MAX_REDIRECTS} times (last to ${location}).`,
          "Fetch the final address directly if you know it.",
        );
      }
      const next = redirectUrl(url, location);
      target = await resolveTarget(next, resolve, signal, { proxied });
      url = await authorizeRedirect(url, next, target.local, ctx);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ToolError(
        "failed",
        `${url.href} answered HTTP ${response.status} ${response.statusText}.`,
        response.status === 404
          ? "Check the URL; the page does not exist."
          : "Check the URL or try again later.",
        { status: response.status },
      );
    }
    return { response, url };
  }
}

/**
 * A name that resolved to a local address, put to the gate marked so.
 * Without a gate to ask, it is not fetched.
 */
async function authorizeLocal(url: URL, local: string, ctx: ToolContext): Promise<void> {
  if (!ctx.authorize) {
    throw new ToolError(
      "denied",
      `${url.href} was not fetched: ${local}, and nothing here can approve a local address.`,
      `A local address needs a rule naming its host and port, e.g. webfetch(${url.origin}/*).`,
    );
  }
  await ctx.authorize(fetchAccess(url, local));
}

/** Where a redirect leads; only an http(s) URL is followed. */
function redirectUrl(from: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ToolError(
      "failed",
      `${from.href} redirected to "${location}", which is not a valid URL.`,
      "The server's redirect is broken; look for the page elsewhere.",
    );
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new ToolError(
      "failed",
      `${from.href} redirected to ${next.href}; only http and https URLs are fetched.`,
      "Look for the page elsewhere.",
    );
  }
  return next;
}

/**
 * A redirect is a new request: it passes the permission gate like a call of
 * its own, marked local when it resolved to a local address. Without a gate
 * to ask (a context that has no `authorize`), it is not followed.
 */
async function authorizeRedirect(
  from: URL,
  next: URL,
  local: string | null,
  ctx: ToolContext,
): Promise<URL> {
  if (!ctx.authorize) {
    throw new ToolError(
      "denied",
      `${from.href} redirected to ${next.href}, which was not fetched: nothing here can approve a new URL mid-call.`,
      `Fetch ${next.href} directly, as its own call.`,
    );
  }
  try {
    await ctx.authorize(fetchAccess(next, local));
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    throw new ToolError(
      error.code,
      `${from.href} redirected to ${next.href}, which was not fetched. ${error.message}`,
      error.hint,
      error.metadata,
    );
  }
  return next;
}

/** The body, refusing (and abandoning the stream) past `limit` bytes. */
async function readCapped(
  response: Response,
  signal: AbortSignal,
  limit = MAX_BODY_BYTES,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > limit) {
    await response.body?.cancel();
    throw tooLarge(declared, limit);
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    signal.throwIfAborted();
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(size, limit);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

function tooLarge(size: number, limit: number): ToolError {
  return new ToolError(
    "too_large",
    `The response is larger than ${limit} bytes (at least ${size}); it was not read.`,
    "Fetch a smaller page, or a raw or paginated version of the content.",
  );
}

async function render(
  bytes: Uint8Array,
  contentType: string,
  format: "markdown" | "text" | "html",
  pageUrl: string,
): Promise<string> {
  const type = contentType.toLowerCase();
  const textual = !type || type.startsWith("text/") ||
    /json|xml|javascript|yaml|toml|csv/.test(type);
  if (!textual) {
    return `(${contentType}, ${bytes.length} bytes: not text, so the content is not shown.)`;
  }
  const text = decodeBody(bytes, type);
  const isHtml = type.includes("html") || (!type && /^\s*<(!doctype html|html)/i.test(text));
  if (!isHtml || format === "html") return text;
  return format === "markdown" ? await htmlToMarkdown(text, pageUrl) : htmlToText(text);
}

/** The body in the charset the server named (latin1 pages exist), else UTF-8. */
function decodeBody(bytes: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
