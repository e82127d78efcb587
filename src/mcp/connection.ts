/**
 * One MCP server: starting it, listing its tools, calling them with a time
 * limit, and coming back once after the connection dies. A server's troubles
 * never end the session: they become a warning at start or a tool error on
 * call, worded so the model (and the person) know what happened.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../contracts/tool_call.ts";
import type { McpServerConfig } from "./config.ts";
import { buildServerEnvironment } from "./environment.ts";
import { StdioTransport } from "./stdio_transport.ts";
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import type { McpCallResult } from "./result.ts";
import { McpLoginNeeded, SessionOAuthProvider } from "./oauth_provider.ts";

export type ConnectionState = "idle" | "connecting" | "connected" | "dead" | "failed" | "closed";

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The OS sandbox for a server with `"sandbox": true`, with the network as
 * that server asks; a string says why there is none (it then does not start).
 */
export type SandboxLauncherFor = (
  server: { network: boolean },
) => Promise<ProcessLauncher | string>;

export interface ConnectionDeps {
  env: (name: string) => string | undefined;
  sandboxLauncher?: SandboxLauncherFor;
  /** Where a sandboxed server without `cwd` starts. @default Deno.cwd() */
  workspace?: string;
  fetch?: typeof fetch;
  clientInfo: { name: string; version: string };
  /**
   * skiff's data folder, where `skiff mcp login` keeps OAuth logins by server
   * URL (oauth_store.ts). Without it a remote server gets only its headers.
   */
  dataDir?: string;
}

/** Last lines a stdio server wrote to stderr, kept to explain a failure. */
const STDERR_KEEP = 2000;
/** A server that keeps dying is given up on rather than restarted on every call. */
const MAX_RESTARTS = 3;

export class McpConnection {
  state: ConnectionState = "idle";
  reason?: string;
  tools: McpToolInfo[] = [];
  /** Which transport ended up connected ("sse" after a fallback). */
  transportUsed?: "stdio" | "http" | "sse";
  private client?: Client;
  private transport?: Transport;
  private stderrTail = "";
  private restarts = 0;
  private readonly inFlight = new Set<AbortController>();
  private restarting?: Promise<boolean>;

  constructor(readonly config: McpServerConfig, private readonly deps: ConnectionDeps) {}

  /** Restarts so far this session. */
  get restartCount(): number {
    return this.restarts;
  }

  /** Process id of a stdio server while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? this.transport.pid : undefined;
  }

  /** Starts the server and lists its tools. On failure, `state` is "failed" and `reason` says why. */
  async connect(): Promise<void> {
    this.state = "connecting";
    try {
      await this.open();
      const listed = await this.client!.listTools(undefined, {
        timeout: this.config.connectTimeoutMs,
      });
      this.tools = (listed.tools as McpToolInfo[]).map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as Record<string, unknown>,
      }));
      this.state = "connected";
      this.reason = undefined;
    } catch (error) {
      await this.dropClient();
      this.state = "failed";
      this.reason = this.explain(error);
      throw new Error(this.reason);
    }
  }

  async callTool(name: string, args: unknown, signal?: AbortSignal): Promise<McpCallResult> {
    await this.ensureConnected();
    try {
      return await this.request(name, args, signal);
    } catch (error) {
      const undelivered = !(error instanceof ConnectionLost) && !signal?.aborted &&
        !isMcpError(error);
      if (!undelivered) throw this.failure(error, signal);
      // The request failed before the server took it (refused connection,
      // unknown session after a server restart, a process already gone):
      // safe to send again once the server is back.
      this.state = "dead";
      this.reason = this.explain(error);
      await this.ensureConnected();
      try {
        return await this.request(name, args, signal);
      } catch (retryError) {
        throw this.failure(retryError, signal);
      }
    }
  }

  /** What a failed call throws: a ToolError the model can read, or the abort as it came. */
  private failure(error: unknown, signal?: AbortSignal): unknown {
    if (error instanceof ConnectionLost) return this.lostDuringCall(error.message);
    if (signal?.aborted) return error;
    if (isMcpError(error)) return this.toolErrorFor(error);
    this.state = "dead";
    this.reason = this.explain(error);
    return this.unavailable(this.reason);
  }

  async close(): Promise<void> {
    this.state = "closed";
    await this.dropClient();
  }

  /** Each call gets its own abort, so a lost connection can end the calls waiting on it. */
  private async request(name: string, args: unknown, signal?: AbortSignal): Promise<McpCallResult> {
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    this.inFlight.add(controller);
    try {
      return await this.client!.callTool(
        { name, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        { timeout: this.config.timeoutMs, signal: controller.signal },
      ) as McpCallResult;
    } catch (error) {
      // The SDK turns any abort into a timeout error; the reason tells them apart.
      if (controller.signal.reason instanceof ConnectionLost) throw controller.signal.reason;
      throw error;
    } finally {
      this.inFlight.delete(controller);
      signal?.removeEventListener("abort", forward);
    }
  }

  /** The connection is gone for good: calls waiting on it fail now, not at their timeout. */
  private connectionLost(reason: string): void {
    this.state = "dead";
    this.reason = reason;
    for (const controller of this.inFlight) controller.abort(new ConnectionLost(reason));
  }

  private lostDuringCall(reason: string): ToolError {
    this.state = "dead";
    this.reason = reason;
    return new ToolError(
      "failed",
      `MCP server "${this.config.name}" stopped during the call (${reason}); the call may not have finished.`,
      "The server is restarted on the next call; check whether the work was done before repeating it.",
    );
  }

  /**
   * A dead connection gets one restart attempt; when that fails, or after
   * MAX_RESTARTS restarts in one session, the server counts as failed.
   */
  private async ensureConnected(): Promise<void> {
    // Parallel calls that find the server dead share one restart.
    if (this.restarting) await this.restarting;
    if (this.state === "connected") return;
    if (this.state === "dead" && this.restarts < MAX_RESTARTS) {
      this.restarts++;
      this.restarting = this.restart().finally(() => this.restarting = undefined);
      if (await this.restarting) return;
    }
    if (this.state === "dead") this.state = "failed";
    throw this.unavailable(this.reason ?? this.state);
  }

  private async restart(): Promise<boolean> {
    const lost = this.reason;
    try {
      await this.dropClient();
      await this.connect();
      return true;
    } catch {
      this.reason = `${this.reason} (restart after "${lost}" failed)`;
      return false;
    }
  }

  private unavailable(reason: string): ToolError {
    return new ToolError(
      "failed",
      `MCP server "${this.config.name}" is not available: ${reason}`,
      "Carry on without this server's tools, or tell the user to check it with `skiff mcp list`.",
    );
  }

  private toolErrorFor(error: { code: number; message: string }): ToolError {
    const server = `MCP server "${this.config.name}"`;
    if (error.code === ErrorCode.RequestTimeout) {
      return new ToolError(
        "timeout",
        `${server} did not answer within ${this.config.timeoutMs} ms.`,
        "Try a smaller request, or carry on without this tool; the call was cancelled.",
      );
    }
    if (error.code === ErrorCode.ConnectionClosed) return this.lostDuringCall(this.explain(error));
    const code = error.code === ErrorCode.InvalidParams ? "bad_input" : "failed";
    return new ToolError(
      code,
      `${server} returned an error: ${error.message}`,
      "Check the arguments against the tool's schema.",
    );
  }

  private async open(): Promise<void> {
    const { config } = this;
    if (config.transport === "stdio") {
      await this.attach(this.stdioTransport(), "stdio");
      return;
    }
    const url = new URL(config.url);
    const init = {
      requestInit: { headers: config.headers },
      fetch: this.deps.fetch,
      authProvider: this.oauthProvider(config),
    };
    if (config.transport === "sse") {
      await this.attach(new SSEClientTransport(url, init), "sse");
      return;
    }
    try {
      await this.attach(new StreamableHTTPClientTransport(url, init), "http");
    } catch (streamableError) {
      if (
        config.transport === "http" || isTimeout(streamableError) ||
        streamableError instanceof McpLoginNeeded
      ) {
        throw streamableError;
      }
      await this.dropClient();
      try {
        await this.attach(new SSEClientTransport(url, init), "sse");
      } catch (sseError) {
        throw new Error(
          `streamable HTTP: ${this.explain(streamableError)}; SSE fallback: ${
            this.explain(sseError)
          }`,
        );
      }
    }
  }

  /**
   * The stored login for the server's URL, sent and refreshed by the SDK; none
   * when the entry sets its own Authorization header (the user's choice wins).
   */
  private oauthProvider(
    config: Extract<McpServerConfig, { transport: "http" | "sse" | "auto" }>,
  ): SessionOAuthProvider | undefined {
    const dataDir = this.deps.dataDir;
    if (!dataDir || ownAuthorization(config)) return undefined;
    return new SessionOAuthProvider({ serverName: config.name, serverUrl: config.url, dataDir });
  }

  private stdioTransport(): StdioTransport {
    const config = this.config as Extract<McpServerConfig, { transport: "stdio" }>;
    this.stderrTail = "";
    const sandbox = config.sandbox;
    const launcherFor = this.deps.sandboxLauncher;
    return new StdioTransport({
      command: config.command,
      args: config.args,
      env: buildServerEnvironment(config.env, this.deps.env),
      cwd: config.cwd,
      sandbox: sandbox
        ? {
          launcher: () =>
            launcherFor
              ? launcherFor(sandbox)
              : Promise.resolve("no sandbox launcher is available to this command"),
          cwd: config.cwd ?? this.deps.workspace ?? Deno.cwd(),
          own: config.env,
        }
        : undefined,
      onStderr: (text) => {
        this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEEP);
      },
    });
  }

  private async attach(transport: Transport, kind: "stdio" | "http" | "sse"): Promise<void> {
    const client = new Client(this.deps.clientInfo, { capabilities: {} });
    this.client = client;
    this.transport = transport;
    client.onclose = () => {
      if (this.client !== client || this.state !== "connected") return;
      this.state = "dead";
      this.reason = this.withStderr("the connection closed");
    };
    client.onerror = (error: Error) => {
      // An HTTP response stream that broke is retried by the SDK a few times;
      // when it gives up, the answers to calls in flight will never come.
      if (this.client === client && /Maximum reconnection attempts/.test(error.message)) {
        this.connectionLost("the server stopped answering (its event stream could not be resumed)");
      }
    };
    const limit = this.config.connectTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new McpError(ErrorCode.RequestTimeout, `no answer within ${limit} ms`)),
        limit,
      );
    });
    try {
      await Promise.race([client.connect(transport, { timeout: limit }), timeout]);
      this.transportUsed = kind;
    } finally {
      clearTimeout(timer);
    }
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (!client) return;
    try {
      await client.close();
    } catch {
      // Already gone; nothing to stop.
    }
  }

  private explain(error: unknown): string {
    if (isTimeout(error)) {
      return this.withStderr(`no answer within ${this.config.connectTimeoutMs} ms`);
    }
    if (ownAuthorization(this.config) && (error as { code?: unknown })?.code === 401) {
      return 'it answered 401 Unauthorized to the "Authorization" header of its entry: check that token';
    }
    const message = error instanceof Error ? error.message : String(error);
    return this.withStderr(message.replace(/^MCP error -?\d+: /, ""));
  }

  private withStderr(reason: string): string {
    const last = this.stderrTail.trim().split("\n").slice(-1)[0]?.trim();
    return last ? `${reason}; stderr: ${last.slice(0, 300)}` : reason;
  }
}

/** A remote entry that sends its own Authorization header (a static token). */
function ownAuthorization(config: McpServerConfig): boolean {
  return config.transport !== "stdio" &&
    Object.keys(config.headers).some((name) => name.toLowerCase() === "authorization");
}

// The SDK's subpath exports carry no usable types under Deno, so its
// errors are narrowed by hand here.
/** Why a call was cut short: its connection died under it. */
class ConnectionLost extends Error {}

function isMcpError(error: unknown): error is { code: number; message: string } {
  return error instanceof McpError;
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && (error as { code: number }).code === ErrorCode.RequestTimeout;
}
