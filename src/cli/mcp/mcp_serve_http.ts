/**
 * `skiff mcp serve --http`: streamable HTTP on 127.0.0.1, behind the bearer
 * token it prints. Each client gets its own MCP session and, behind it, its
 * own skiff session (engine, lock, ledger, undo): several clients at once,
 * up to MAX_CLIENTS, and a client that ends its session (DELETE) makes room
 * for the next. A request for a session that is gone is answered 404, so a
 * client knows to start again.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { printErrorLine } from "../../ui/safe_print.ts";

/** The addresses `--host` may name, and the origins a request may come from. */
export const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** Clients served at once: each holds an engine (a Worker) until it ends its session. */
export const MAX_CLIENTS = 8;

/** How long a stop waits for requests still in flight once every session is closed. */
const SHUTDOWN_GRACE_MS = 2_000;

/** One client's skiff session behind its MCP server; `close` ends both. */
export interface ServedSession {
  server: Server;
  sessionId: string;
  close(): Promise<void>;
}

/** Equal in time whatever the input, so the token cannot be guessed byte by byte. */
function sameToken(given: string, token: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(token);
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i] ?? 0) ^ b[i];
  return difference === 0;
}

function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const text = (body: string, status: number, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers });

/** Whether a POST body opens a session (an `initialize` request, alone or in a batch). */
function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) =>
    typeof message === "object" && message !== null &&
    (message as { method?: unknown }).method === "initialize"
  );
}

/**
 * Listens on 127.0.0.1:`port` until `stopped` resolves; `openSession` makes
 * a client's skiff session when it initializes. Every session is closed on
 * the way out.
 */
export async function serveHttp(
  port: number,
  openSession: () => Promise<ServedSession>,
  stopped: Promise<void>,
): Promise<void> {
  const token = newToken();
  const clients = new Map<
    string,
    { transport: WebStandardStreamableHTTPServerTransport; served: ServedSession }
  >();
  let opening = 0;

  const end = async (mcpSession: string) => {
    const client = clients.get(mcpSession);
    if (!client) return;
    clients.delete(mcpSession);
    await client.served.close();
    printErrorLine(`client session ${mcpSession} ended (skiff session ${client.served.sessionId})`);
  };

  const initialize = async (request: Request): Promise<Response> => {
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return text("Bad request: the body is not JSON\n", 400);
    }
    if (!isInitialize(body)) {
      return text(
        "Bad request: no mcp-session-id header; send initialize first to open a session\n",
        400,
      );
    }
    if (clients.size + opening >= MAX_CLIENTS) {
      return text(
        `Busy: ${MAX_CLIENTS} clients have sessions open; one must end its session (DELETE /mcp) first\n`,
        503,
        { "retry-after": "5" },
      );
    }
    opening++;
    let served: ServedSession;
    try {
      served = await openSession();
    } finally {
      opening--;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (mcpSession: string) => {
        clients.set(mcpSession, { transport, served });
        printErrorLine(
          `client session ${mcpSession}: skiff session ${served.sessionId}; ` +
            `take its changes back with skiff undo --session ${served.sessionId}`,
        );
      },
      onsessionclosed: (mcpSession: string) => end(mcpSession),
    });
    await served.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // An initialize the transport refused opened no session: nothing holds this one.
    if (!transport.sessionId || !clients.has(transport.sessionId)) await served.close();
    return response;
  };

  const listener = Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: ({ port }) => {
      console.error(`url: http://127.0.0.1:${port}/mcp`);
      console.error(`token: ${token}`);
      console.error("Clients send it as the header Authorization: Bearer <token>.");
      console.error(`Each client gets its own session; up to ${MAX_CLIENTS} at once.`);
    },
  }, (request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/mcp") return text("Not found: the endpoint is /mcp\n", 404);
    const given = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!sameToken(given, token)) {
      return text(
        "Unauthorized: send the token skiff mcp serve printed as Authorization: Bearer <token>\n",
        401,
        { "www-authenticate": "Bearer" },
      );
    }
    // A web page the user visits cannot hold the token, but refuse its origin anyway.
    const origin = request.headers.get("origin");
    if (origin && !LOOPBACK.has(new URL(origin).hostname.replace(/^\[|\]$/g, ""))) {
      return text("Forbidden origin\n", 403);
    }
    const mcpSession = request.headers.get("mcp-session-id");
    if (mcpSession) {
      const client = clients.get(mcpSession);
      if (!client) {
        return text("Not found: no such session (it ended); send initialize again\n", 404);
      }
      return client.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return text("Bad request: no mcp-session-id header\n", 400);
    }
    return initialize(request);
  });
  await stopped;
  // The sessions first: closing a transport ends the event stream its client may hold open, which
  // a graceful shutdown would wait for. A connection still open after that does not hold the exit.
  await Promise.all([...clients.keys()].map(end));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    listener.shutdown(),
    new Promise((resolve) => timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)),
  ]);
  clearTimeout(timer);
}
