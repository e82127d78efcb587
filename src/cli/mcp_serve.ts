/**
 * `skiff mcp serve`: skiff's tools for any MCP client (Claude Code, Codex,
 * Cursor), never for skiff itself (mcp_nested.ts). Stdio by default; `--http PORT` listens on
 * 127.0.0.1 only and requires the bearer token it prints. One session backs
 * every call, opened the way `skiff tool` opens it (prepare → engine →
 * runTool), so the policy table, sandbox and undo are the same; since nobody
 * can be asked, an `ask` is refused with the `--allow` rule that would pass.
 */
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type CommonOptions, prepare } from "../host/setup.ts";
import { startEngine } from "../host/start.ts";
import { createSkiffMcpServer, servedTools } from "../engine/mcp_server.ts";
import { ExitCode, UsageError } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";
import { printErrorLine } from "../ui/safe_print.ts";
import { refuseInsideSkiff } from "./mcp_nested.ts";

export interface McpServeOptions extends CommonOptions {
  /** `--http PORT`: serve over HTTP on 127.0.0.1 instead of stdio (0: any free port). */
  http?: string;
  /** `--host`: accepted only when it is a loopback address. */
  host?: string;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** The port of `--http`, checked; the host must be loopback. */
export function parseHttpFlags(options: McpServeOptions): { port: number } | undefined {
  if (options.host !== undefined && !LOOPBACK.has(options.host)) {
    throw new UsageError(
      `--host ${options.host} is not a loopback address: skiff mcp serve runs tools with your rights and listens on 127.0.0.1 only. ` +
        "Reach it from another machine through an SSH tunnel (ssh -L).",
    );
  }
  if (options.http === undefined) return undefined;
  const port = Number(options.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(
      `--http is '${options.http}'; expected a port number (0 picks a free one).`,
    );
  }
  return { port };
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

/** Waits for SIGINT or SIGTERM. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
      resolve();
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
  });
}

/**
 * Resolves when the client closes our stdin (it ended, or died): nobody can
 * send another request or read an answer, so the server stops and lets go
 * of its session.
 */
function stdinEnded(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once("end", () => {
      printErrorLine("skiff mcp serve: the client closed stdin; stopping.");
      resolve();
    });
  });
}

/** Serves skiff's tools over stdio, or over HTTP with `--http`, until stopped; the exit code. */
export async function mcpServeCommand(options: McpServeOptions): Promise<number> {
  try {
    const http = parseHttpFlags(options);
    refuseInsideSkiff("mcp serve");
    const deny = () => Promise.resolve("deny" as const);
    const { spec } = await prepare(options, false, deny);
    // Their tools are never offered here; and one of them may be skiff again.
    spec.mcp = { ...spec.mcp, enabled: false, resolved: undefined };
    // stdin is the protocol (or nobody is there): never ask a person.
    const engine = await startEngine({ ...spec, agent: "tool", interactive: false }, {
      event: (event) => {
        if (event.type === "warning") printErrorLine(`warning: ${event.message}`);
      },
      ask: deny,
    });
    try {
      const sessionId = await engine.open({});
      const tools = servedTools(spec.settings.memory !== false);
      console.error(
        `skiff mcp serve: ${tools.length} tools in ${spec.workspace} (sandbox ${spec.sandbox.mode}); ` +
          `session ${sessionId}: take its changes back with skiff undo --session ${sessionId}`,
      );
      const server = createSkiffMcpServer(engine, tools);
      if (!http) {
        const closed = new Promise<void>((resolve) => (server.onclose = resolve));
        await server.connect(new StdioServerTransport());
        await Promise.race([closed, stdinEnded(), untilStopped()]);
        await server.close();
        return ExitCode.ok;
      }
      const token = newToken();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
      });
      await server.connect(transport);
      const listener = Deno.serve({
        hostname: "127.0.0.1",
        port: http.port,
        onListen: ({ port }) => {
          console.error(`url: http://127.0.0.1:${port}/mcp`);
          console.error(`token: ${token}`);
          console.error("Clients send it as the header Authorization: Bearer <token>.");
        },
      }, (request) => {
        const url = new URL(request.url);
        if (url.pathname !== "/mcp") {
          return new Response("Not found: the endpoint is /mcp\n", { status: 404 });
        }
        const given = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
        if (!sameToken(given, token)) {
          return new Response(
            "Unauthorized: send the token skiff mcp serve printed as Authorization: Bearer <token>\n",
            {
              status: 401,
              headers: { "www-authenticate": "Bearer" },
            },
          );
        }
        // A web page the user visits cannot hold the token, but refuse its origin anyway.
        const origin = request.headers.get("origin");
        if (origin && !LOOPBACK.has(new URL(origin).hostname.replace(/^\[|\]$/g, ""))) {
          return new Response("Forbidden origin\n", { status: 403 });
        }
        return transport.handleRequest(request);
      });
      await untilStopped();
      await server.close();
      await listener.shutdown();
      return ExitCode.ok;
    } finally {
      await engine.close();
    }
  } catch (error) {
    return reportFatal(error);
  }
}
