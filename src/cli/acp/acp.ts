/**
 * `skiff acp`: skiff inside an editor. It speaks the Agent Client Protocol
 * over stdio (the official SDK: the framing, the schema checks, the
 * JSON-RPC errors); each ACP session is a skiff session opened in the
 * editor's folder the way the chat opens one (acp_session.ts), so `skiff
 * sessions list` shows it and `skiff -c` continues it. Stdout is the
 * protocol: everything for a person goes to stderr.
 */
import { untilStopped } from "../../lib/until_stopped.ts";
import * as acp from "@agentclientprotocol/sdk";
import { type CommonOptions, prepare } from "../../host/setup.ts";
import type { EngineSpec } from "../../engine/types.ts";
import type { SessionSelector } from "../../engine/handle.ts";
import type { StoredMessage } from "../../engine/loop/history.ts";
import { VERSION } from "../../version.ts";
import { ExitCode } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";
import { withStore } from "../store_access.ts";
import { printErrorLine } from "../../ui/safe_print.ts";
import { AcpSession } from "./acp_session.ts";
import { addEditorServers } from "./acp_mcp.ts";
import { replayUpdates } from "./acp_replay.ts";
import { listedSessions } from "./acp_list.ts";

/** A failure as the editor gets it: a user's mistake as invalid params, with what to do. */
function wireError(error: unknown): acp.RequestError {
  if (error instanceof acp.RequestError) return error;
  const failure = error as { message?: string; hint?: string; kind?: string };
  const text = [failure.message ?? String(error), failure.hint].filter(Boolean).join(" ");
  return failure.kind === "usage" || failure.kind === "config"
    ? acp.RequestError.invalidParams(undefined, text)
    : acp.RequestError.internalError(undefined, text);
}

/** Runs `work`; any failure reaches the editor as a JSON-RPC error that says what went wrong. */
async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw wireError(error);
  }
}

/** skiff's answer to `initialize`: what it can do. */
function initializeAnswer(): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {} },
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    },
    agentInfo: { name: "skiff", title: "skiff", version: VERSION },
    authMethods: [],
  };
}

/**
 * How long an `fs/*` request waits for the editor: SKIFF_EDITOR_WAIT
 * seconds when set to a positive number (docs/editors.md). Needs
 * `--allow-env`.
 * @default 10 seconds
 */
export function editorWait(): number {
  const seconds = Number(Deno.env.get("SKIFF_EDITOR_WAIT"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 10_000;
}

/** The ACP agent: its handlers over `sessions`, the sessions this connection opened. */
export function acpAgent(options: CommonOptions, sessions: Map<string, AcpSession>): acp.AgentApp {
  // What the editor offers, from its `initialize`; nothing until it says.
  let fs: acp.FileSystemCapabilities = {};
  const wait = editorWait();
  /** The session's spec for the editor's folder: the flags of `skiff acp`, its own trust decision. */
  const specFor = async (
    cwd: string,
    servers: readonly acp.McpServer[],
  ): Promise<EngineSpec> => {
    // stdin is the protocol, never a person: no question is asked while preparing.
    const { spec } = await prepare({ ...options, dir: cwd }, true);
    const refused = addEditorServers(spec, servers);
    if (refused) {
      spec.warnings.push(refused);
      printErrorLine(`warning: ${refused}`);
    }
    return spec;
  };
  const opened = async (
    client: acp.AgentContext,
    spec: EngineSpec,
    selector: SessionSelector,
    editorRoot: string,
  ): Promise<AcpSession> => {
    // The session open here already is let go first: a stored session is held by one engine.
    if (selector.sessionId) {
      await sessions.get(selector.sessionId)?.close();
      sessions.delete(selector.sessionId);
    }
    const session = await AcpSession.open(spec, client, selector, {
      fs,
      editorWait: wait,
      editorRoot,
    });
    sessions.set(session.id, session);
    return session;
  };
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) {
      throw acp.RequestError.invalidParams(
        { sessionId },
        `no open session ${sessionId}; open it with session/new or session/load first`,
      );
    }
    return session;
  };
  return acp.agent({ name: "skiff" })
    .onRequest("initialize", ({ params }) => {
      fs = params.clientCapabilities?.fs ?? {};
      return initializeAnswer();
    })
    .onRequest("session/new", ({ params, client }) =>
      answering(async () => {
        const spec = await specFor(params.cwd, params.mcpServers);
        const session = await opened(client, spec, {}, params.cwd);
        return { sessionId: session.id, modes: session.modes() };
      }))
    .onRequest("session/load", ({ params, client }) =>
      answering(async () => {
        const spec = await specFor(params.cwd, params.mcpServers);
        const session = await opened(client, spec, { sessionId: params.sessionId }, params.cwd);
        const history = withStore(
          (store) => store.loadHistory(session.id),
          spec.dataDir,
        ) as StoredMessage[];
        for (const update of replayUpdates(history, spec.workspace)) session.send(update);
        await session.flush();
        return { modes: session.modes() };
      }))
    // As session/load, without the history sent again: the editor still shows it.
    .onRequest("session/resume", ({ params, client }) =>
      answering(async () => {
        const spec = await specFor(params.cwd, params.mcpServers ?? []);
        const session = await opened(client, spec, { sessionId: params.sessionId }, params.cwd);
        return { modes: session.modes() };
      }))
    // The turn running in it stops as at session/cancel; its engine and MCP servers end.
    .onRequest("session/close", ({ params }) =>
      answering(async () => {
        const session = sessionOf(params.sessionId);
        sessions.delete(params.sessionId);
        await session.close();
        return {};
      }))
    .onRequest(
      "session/list",
      ({ params }) => answering(() => Promise.resolve(listedSessions(params))),
    )
    .onRequest("session/prompt", ({ params }) =>
      answering(async () => ({
        stopReason: await sessionOf(params.sessionId).prompt(params.prompt),
      })))
    .onRequest("session/set_mode", ({ params }) =>
      answering(async () => {
        await sessionOf(params.sessionId).setMode(params.modeId);
        return {};
      }))
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });
}

/** Serves ACP on stdin and stdout until the editor closes stdin or a signal comes; the exit code. */
export async function acpCommand(options: CommonOptions): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  try {
    const connection = acpAgent(options, sessions).connect(
      acp.ndJsonStream(Deno.stdout.writable, Deno.stdin.readable),
    );
    await Promise.race([connection.closed, untilStopped()]);
    return ExitCode.ok;
  } catch (error) {
    return reportFatal(error);
  } finally {
    for (const session of sessions.values()) await session.close();
  }
}
