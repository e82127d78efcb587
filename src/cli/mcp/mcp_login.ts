/**
 * `skiff mcp login <server>` and `skiff mcp logout <server>`: an OAuth login
 * to a remote MCP server named in config or `.mcp.json` (src/mcp/oauth_login.ts),
 * kept in the data folder under the server's URL, and its removal. The server
 * is found as a session finds it: a project's own server only on the user's
 * word (`--allow 'mcp_server(name)'`, or a trusted project).
 */
import { prepare } from "../../host/setup.ts";
import { mcpManagerSources } from "../../engine/mcp_start.ts";
import { resolveMcpServers } from "../../mcp/config.ts";
import type { McpServerConfig } from "../../mcp/config.ts";
import { McpManager } from "../../mcp/manager.ts";
import { DEFAULT_LOGIN_TIMEOUT_MS, loginToMcpServer } from "../../mcp/oauth_login.ts";
import { oauthKey, removeOAuthRecord } from "../../mcp/oauth_store.ts";
import { approvalPrompter } from "../approvals.ts";
import { VERSION } from "../../version.ts";
import { ExitCode, UsageError } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";
import { printErrorLine, printLine } from "../../ui/safe_print.ts";
import { numberFlag } from "../number_flags.ts";

type RemoteServer = Extract<McpServerConfig, { transport: "http" | "sse" | "auto" }>;

interface LoginFlags {
  dir?: string;
  allow?: string[];
  /** Seconds to wait for the browser. */
  timeout?: string;
}

/** The remote server a login is for, found as a session finds it. */
async function remoteServer(
  name: string,
  options: LoginFlags,
): Promise<{ server: RemoteServer; dataDir: string; warnings: string[] }> {
  const { spec } = await prepare(options, false, approvalPrompter(true));
  const sources = mcpManagerSources(spec);
  const { servers, warnings } = spec.mcp.resolved ?? resolveMcpServers({
    ...sources,
    configServers: sources.servers,
  });
  const server = servers.find((candidate) => candidate.name === name);
  if (!server) {
    const known = servers.map((candidate) => candidate.name);
    throw new UsageError(
      `no MCP server named "${name}" is configured${
        known.length ? ` (configured: ${known.join(", ")})` : ""
      }`,
      'Name a server from config "mcp" or .mcp.json; `skiff mcp list` shows them.',
    );
  }
  if (server.transport === "stdio") {
    throw new UsageError(
      `MCP server "${name}" is a local program (stdio); only a remote server (a "url") takes a login`,
      "Give the program its credentials through its env in the server's entry.",
    );
  }
  if (!server.enabled) {
    throw new UsageError(
      `MCP server "${name}" (${server.source}) is switched off or not allowed in this project`,
      server.origin === "project"
        ? `A project's own server takes a login only on your word: --allow 'mcp_server(${name})'.`
        : `Switch it on in ${server.source} first.`,
    );
  }
  return { server, dataDir: spec.dataDir, warnings: [...spec.warnings, ...warnings] };
}

/** `skiff mcp login <server>`: prints the URL to open, waits for the browser, stores the tokens. */
export async function loginMcp(name: string, options: LoginFlags): Promise<number> {
  try {
    const { server, dataDir, warnings } = await remoteServer(name, options);
    for (const warning of warnings) printErrorLine(`warning: ${warning}`);
    const seconds = numberFlag("--timeout", options.timeout) ?? DEFAULT_LOGIN_TIMEOUT_MS / 1000;
    printLine(`Logging in to MCP server "${name}" at ${oauthKey(server.url)} (${server.source}).`);
    let result;
    try {
      result = await loginToMcpServer({
        serverName: name,
        serverUrl: server.url,
        transport: server.transport,
        headers: server.headers,
        dataDir,
        timeoutMs: seconds * 1000,
        onAuthorizationUrl: (url, redirectUrl) => {
          printLine(`Open this URL in a browser to log in (it comes back to ${redirectUrl}):`);
          printLine(`  ${url.href}`);
          printLine(`Waiting up to ${seconds} s for the browser…`);
        },
      });
    } catch (error) {
      printErrorLine(`skiff: login to MCP server "${name}" failed: ${(error as Error).message}`);
      printErrorLine(
        'If the server does not offer OAuth, give it a token in its entry: "headers": {"Authorization": "Bearer …"}.',
      );
      return ExitCode.failed;
    }
    if (result.kind === "not-needed") {
      printLine(
        `MCP server "${name}" answered ${result.status} without credentials: it asks for no login. Nothing was stored.`,
      );
      return ExitCode.ok;
    }
    printLine(`Logged in. The tokens are kept in ${result.file} (readable by you alone).`);
    return await checkServer(server, dataDir);
  } catch (error) {
    return reportFatal(error);
  }
}

/** Connects once with the stored login, so the person sees it works. */
async function checkServer(server: RemoteServer, dataDir: string): Promise<number> {
  const manager = new McpManager({
    workspace: Deno.cwd(),
    resolved: { servers: [server], warnings: [] },
    dataDir,
    clientInfo: { name: "skiff", version: VERSION },
  });
  try {
    const { warnings } = await manager.start();
    for (const warning of warnings) printErrorLine(`warning: ${warning}`);
    const [status] = manager.status();
    if (status.state !== "connected") return ExitCode.failed;
    const count = status.tools.length;
    printLine(`MCP server "${server.name}" offers ${count} tool${count === 1 ? "" : "s"}.`);
    return ExitCode.ok;
  } finally {
    await manager.close();
  }
}

/** `skiff mcp logout <server>`: deletes the login stored for the server's URL. */
export async function logoutMcp(name: string, options: LoginFlags): Promise<number> {
  try {
    const { server, dataDir } = await remoteServer(name, options);
    const removed = removeOAuthRecord(dataDir, server.url);
    printLine(
      removed
        ? `Logged out of MCP server "${name}": the login for ${oauthKey(server.url)} was deleted.`
        : `No login was stored for MCP server "${name}" (${oauthKey(server.url)}).`,
    );
    return ExitCode.ok;
  } catch (error) {
    return reportFatal(error);
  }
}
