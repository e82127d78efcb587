/**
 * `skiff mcp serve`: skiff's tools for any MCP client (Claude Code, Codex,
 * Cursor), never for skiff itself (mcp_nested.ts). Stdio by default;
 * `--http PORT` listens on 127.0.0.1 only and requires the bearer token it
 * prints (mcp_serve_http.ts). Each client's calls run in a session of its
 * own, opened the way `skiff tool` opens one (prepare → engine → runTool),
 * so the policy table, sandbox and undo are the same; since nobody can be
 * asked, an `ask` is refused with the `--allow` rule that would pass.
 */
import { untilStopped } from "../../lib/until_stopped.ts";
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type CommonOptions, prepare } from "../../host/setup.ts";
import { startEngine } from "../../host/start.ts";
import { createSkiffMcpServer, servedTools } from "../../engine/mcp_server.ts";
import { ExitCode, UsageError } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";
import { printErrorLine } from "../../ui/safe_print.ts";
import { refuseInsideSkiff } from "./mcp_nested.ts";
import { LOOPBACK, type ServedSession, serveHttp } from "./mcp_serve_http.ts";

export interface McpServeOptions extends CommonOptions {
  /** `--http PORT`: serve over HTTP on 127.0.0.1 instead of stdio (0: any free port). */
  http?: string;
  /** `--host`: accepted only when it is a loopback address. */
  host?: string;
}

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
    const tools = servedTools(spec.settings.memory !== false);
    console.error(
      `skiff mcp serve: ${tools.length} tools in ${spec.workspace} (sandbox ${spec.sandbox.mode})`,
    );
    // One per client: its own engine, session, lock, ledger and undo.
    const openSession = (): ServedSession => {
      // stdin is the protocol (or nobody is there): never ask a person.
      const engine = startEngine({ ...spec, agent: "tool", interactive: false }, {
        event: (event) => {
          if (event.type === "warning") printErrorLine(`warning: ${event.message}`);
        },
        ask: deny,
      });
      const opened = engine.then(async (ready) => {
        try {
          return await ready.open({});
        } catch (error) {
          await ready.close();
          throw error;
        }
      });
      const server = createSkiffMcpServer(opened.then(() => engine), tools);
      return {
        server,
        sessionId: opened,
        close: async () => {
          await server.close();
          // An engine that failed to start or open has nothing left to close.
          if (await opened.then(() => true, () => false)) await (await engine).close();
        },
      };
    };
    if (http) {
      await serveHttp(http.port, openSession, untilStopped());
      return ExitCode.ok;
    }
    const served = openSession();
    try {
      const closed = new Promise<void>((resolve) => (served.server.onclose = resolve));
      // Answering the handshake while the engine starts.
      await served.server.connect(new StdioServerTransport());
      const ended = Promise.race([closed, stdinEnded(), untilStopped()]);
      const sessionId = await Promise.race([served.sessionId, ended]);
      if (sessionId) {
        console.error(
          `session ${sessionId}: take its changes back with skiff undo --session ${sessionId}`,
        );
      }
      await ended;
      return ExitCode.ok;
    } finally {
      await served.close();
    }
  } catch (error) {
    return reportFatal(error);
  }
}
