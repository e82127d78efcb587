/**
 * One OAuth login to a remote MCP server, as `skiff mcp login` runs it: ask
 * the server (a request without credentials must come back 401), then the
 * SDK's authorization flow through `LoginOAuthProvider` — discovery, dynamic
 * client registration when offered, authorization code with PKCE — with the
 * browser sent back to a listener on 127.0.0.1 that lives only for this
 * login and takes one answer carrying the `state` it expects. The URL to
 * open is handed to `print`; nothing is opened for the person.
 */
import { auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { LoginOAuthProvider } from "./oauth_provider.ts";
import { readOAuthRecord } from "./oauth_store.ts";

/** How long `skiff mcp login` waits for the browser to come back. @default 300000 */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

export interface McpLoginOptions {
  serverName: string;
  serverUrl: string;
  /** How the server is reached: decides the probe (a POST for HTTP, a GET for SSE). */
  transport: "http" | "sse" | "auto";
  /** The entry's own headers, sent with the probe as with any request to the server. */
  headers?: Record<string, string>;
  dataDir: string;
  /** Called once with the URL to open, and with the address the browser comes back to. */
  onAuthorizationUrl(url: URL, redirectUrl: string): void;
  /** @default DEFAULT_LOGIN_TIMEOUT_MS */
  timeoutMs?: number;
  /** Injected so a test chooses. @default globalThis.fetch */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** How a login ended. */
export type McpLoginResult =
  | { kind: "logged-in"; file: string; scope?: string }
  | { kind: "not-needed"; status: number };

/**
 * Runs the login and stores its tokens (0600, in the data folder). Throws an
 * Error saying what went wrong (no OAuth offered, the browser never came
 * back, the authorization server refused). Needs --allow-net (the server,
 * its authorization server, 127.0.0.1) and read/write in the data folder.
 */
export async function loginToMcpServer(options: McpLoginOptions): Promise<McpLoginResult> {
  const fetchFn = options.fetch ?? fetch;
  const probe = await probeServer(options, fetchFn);
  if (probe.status !== 401) return { kind: "not-needed", status: probe.status };
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(probe);
  const callback = startCallbackListener(preferredPort(options));
  try {
    const state = crypto.randomUUID();
    const provider = new LoginOAuthProvider({
      serverName: options.serverName,
      serverUrl: options.serverUrl,
      dataDir: options.dataDir,
      redirectUrl: callback.redirectUrl,
      state,
      onAuthorizationUrl: (url) => options.onAuthorizationUrl(url, callback.redirectUrl),
    });
    const flow = { serverUrl: options.serverUrl, resourceMetadataUrl, scope, fetchFn };
    const first = await auth(provider, flow);
    if (first === "REDIRECT") {
      const code = await callback.code(
        state,
        options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
        options.signal,
      );
      const second = await auth(provider, { ...flow, authorizationCode: code });
      if (second !== "AUTHORIZED") throw new Error("the authorization server gave no tokens");
    }
    if (!provider.file) throw new Error("the authorization server gave no tokens");
    return { kind: "logged-in", file: provider.file, scope };
  } finally {
    await callback.close();
  }
}

/** A request without credentials, as a client's first one: 401 says a login is wanted. */
async function probeServer(options: McpLoginOptions, fetchFn: typeof fetch): Promise<Response> {
  const headers = new Headers(options.headers);
  let response: Response;
  if (options.transport === "sse") {
    headers.set("accept", "text/event-stream");
    response = await fetchFn(options.serverUrl, { method: "GET", headers, signal: options.signal });
  } else {
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    response = await fetchFn(options.serverUrl, {
      method: "POST",
      headers,
      signal: options.signal,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "skiff", version: "0" },
        },
      }),
    });
  }
  await response.body?.cancel();
  return response;
}

/** The port of the last login's redirect: a registration bound to it can be used again. */
function preferredPort(options: McpLoginOptions): number {
  const stored = readOAuthRecord(options.dataDir, options.serverUrl)?.redirectUrl;
  if (!stored) return 0;
  try {
    return Number(new URL(stored).port) || 0;
  } catch {
    return 0;
  }
}

interface CallbackListener {
  redirectUrl: string;
  /** The authorization code the browser brings back with `state`. */
  code(state: string, timeoutMs: number, signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/** The loopback listener the browser is sent back to; port 0 (any free one) when `port` is taken. */
function startCallbackListener(port: number): CallbackListener {
  let deliver: (answer: URLSearchParams) => void = () => {};
  const answered = new Promise<URLSearchParams>((resolve) => deliver = resolve);
  const handler = (request: Request): Response => {
    const url = new URL(request.url);
    if (request.method !== "GET" || url.pathname !== "/callback") {
      return new Response("Not found", { status: 404 });
    }
    deliver(url.searchParams);
    const failed = url.searchParams.has("error");
    return new Response(
      failed
        ? "skiff: the login did not succeed; see the terminal."
        : "skiff: logged in. You can close this tab and go back to the terminal.",
      { status: failed ? 400 : 200, headers: { "content-type": "text/plain; charset=utf-8" } },
    );
  };
  const listen = (on: number) =>
    Deno.serve({ hostname: "127.0.0.1", port: on, onListen: () => {} }, handler);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = listen(port);
  } catch (error) {
    if (port === 0 || !(error instanceof Deno.errors.AddrInUse)) throw error;
    server = listen(0);
  }
  return {
    redirectUrl: `http://127.0.0.1:${server.addr.port}/callback`,
    async code(state, timeoutMs, signal) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `no browser came back within ${
                  Math.round(timeoutMs / 1000)
                } s; run the login again and open the URL it prints`,
              ),
            ),
          timeoutMs,
        );
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
      try {
        const answer = await Promise.race([answered, late]);
        if (answer.get("state") !== state) {
          throw new Error(
            "the answer that came back does not carry this login's state; nothing was stored",
          );
        }
        const error = answer.get("error");
        if (error) {
          const description = answer.get("error_description");
          throw new Error(
            `the authorization server refused: ${error}${description ? ` (${description})` : ""}`,
          );
        }
        const code = answer.get("code");
        if (!code) throw new Error("the answer that came back carries no authorization code");
        return code;
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => server.shutdown(),
  };
}
