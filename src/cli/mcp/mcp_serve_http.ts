/**
 * `skiff mcp serve --http`: streamable HTTP on 127.0.0.1, behind the bearer
 * token it prints. Each client gets its own MCP session and, behind it, its
 * own skiff session (engine, lock, ledger, undo): several clients at once,
 * up to MAX_CLIENTS. A client that ends its session (DELETE) makes room for
 * the next; so does one that left without ending it (a one-shot command-line
 * client exits so after each call): when all places are taken, the session
 * idle longest — no request or event stream open — is ended for the
 * newcomer. A request for a session that is gone is answered 404, so a
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
  /** The skiff session's id once its engine is up; rejected when it cannot start. */
  sessionId: Promise<string>;
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

/** `response` with a body that calls `done` once, when it has been sent or its reader went away. */
function whenSent(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  let finished = false;
  const finish = () => {
    if (!finished) done();
    finished = true;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

/** One client's transport and session, and what it has open now. */
interface ClientEntry {
  transport: WebStandardStreamableHTTPServerTransport;
  served: ServedSession;
  /** Requests and event streams of this client not yet answered or closed. */
  open: number;
  /** When it last sent a request or a response of its ended (a clock reading). */
  lastActive: number;
}

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
  openSession: () => ServedSession,
  stopped: Promise<void>,
): Promise<void> {
  const token = newToken();
  const clients = new Map<string, ClientEntry>();
  let opening = 0;

  const end = async (mcpSession: string, why = "") => {
    const client = clients.get(mcpSession);
    if (!client) return;
    clients.delete(mcpSession);
    await client.served.close();
    const skiffSession = await client.served.sessionId.catch(() => "none");
    printErrorLine(`client session ${mcpSession} ended${why} (skiff session ${skiffSession})`);
  };

  /** Ends the session idle longest to make room; false when every client has something open. */
  const makeRoom = async (): Promise<boolean> => {
    const idle = [...clients].filter(([, client]) => client.open === 0)
      .sort(([, a], [, b]) => a.lastActive - b.lastActive)[0];
    if (!idle) return false;
    await end(idle[0], `: idle longest, its place given to a new client`);
    return true;
  };

  /** The client's request answered, counted as open until its response has been sent. */
  const handle = async (client: ClientEntry, request: Request): Promise<Response> => {
    client.open++;
    client.lastActive = performance.now();
    const closed = () => {
      client.open--;
      client.lastActive = performance.now();
    };
    try {
      return whenSent(await client.transport.handleRequest(request), closed);
    } catch (error) {
      closed();
      throw error;
    }
  };

  const initialize = async (request: Request): Promise<Response> => {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return text("Bad request: the body is not JSON\n", 400);
    }
    if (!isInitialize(body)) {
      return text(
        "Bad request: no mcp-session-id header; send initialize first to open a session\n",
        400,
      );
    }
    // Checked again after each wait: another client may have taken the place meanwhile.
    while (clients.size + opening >= MAX_CLIENTS) {
      if (await makeRoom()) continue;
      return text(
        `Busy: ${MAX_CLIENTS} clients have a request or event stream open; one must end its session (DELETE /mcp) or finish first\n`,
        503,
        { "retry-after": "5" },
      );
    }
    const served = openSession();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (mcpSession: string) => {
        clients.set(mcpSession, { transport, served, open: 0, lastActive: performance.now() });
        served.sessionId.then((skiffSession) =>
          printErrorLine(
            `client session ${mcpSession}: skiff session ${skiffSession}; ` +
              `take its changes back with skiff undo --session ${skiffSession}`,
          ), (error) => {
          printErrorLine(`client session ${mcpSession}: skiff's session did not start: ${error}`);
          void end(mcpSession);
        });
      },
      onsessionclosed: (mcpSession: string) => end(mcpSession),
    });
    // Counted until the transport holds it, so that clients starting together stay within bounds.
    opening++;
    let response: Response;
    try {
      await served.server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: body });
    } finally {
      opening--;
    }
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
      console.error(
        `Each client gets its own session; up to ${MAX_CLIENTS} at once, then the one idle longest makes room.`,
      );
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
      return handle(client, request);
    }
    if (request.method !== "POST") {
      return text("Bad request: no mcp-session-id header\n", 400);
    }
    return initialize(request);
  });
  await stopped;
  // The sessions first: closing a transport ends the event stream its client may hold open, which
  // a graceful shutdown would wait for. A connection still open after that does not hold the exit.
  await Promise.all([...clients.keys()].map((mcpSession) => end(mcpSession)));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    listener.shutdown(),
    new Promise((resolve) => timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)),
  ]);
  clearTimeout(timer);
}
