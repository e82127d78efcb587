/**
 * Runs the engine in a Worker whose Deno permissions come from the sandbox
 * mode: the workspace (read-write, or read-only), extra folders, the data
 * folder, config folders, the provider's and MCP servers' hosts. A bug in a
 * tool's own path checks then meets NotCapable instead of the user's files.
 */
import { fromErrorData, toErrorData } from "../contracts/errors.ts";
import { relayEditorRequest } from "./editor_relay.ts";
import { peerCrashed, RpcClient } from "../lib/rpc.ts";
import * as path from "../lib/path.ts";
import { homeDir } from "../sandbox/paths.ts";
import { loadAgents } from "../definitions/agents/load.ts";
import type { AgentDefinition } from "../definitions/agents/types.ts";
import { findGitRoot } from "../lib/git_root.ts";
import { workerPermissions } from "../sandbox/worker_permissions.ts";
import { SETSID_PATHS } from "../sandbox/shell.ts";
import { PROXY_VARIABLES } from "../provider/connect_probe.ts";
import { type ConfinedWriter, startConfinedWriter } from "../sandbox/writer/confined_writer.ts";
import type { WriterReply, WriterRequest } from "../sandbox/writer/writer_messages.ts";
import type { McpServerConfig } from "../mcp/config.ts";
import { sessionMcpServers } from "../mcp/sources.ts";
import { oauthHosts, readOAuthRecord } from "../mcp/oauth_store.ts";
import type { EngineRequest, FromEngine, ToEngine } from "../engine/protocol.ts";
import type { EngineIO, EngineSpec } from "../engine/types.ts";
import type { EngineHandle } from "../engine/handle.ts";
import { takePrewarmed } from "../boot/prewarm.ts";
import { addWorkerMarks, timingsOn } from "../boot/timings.ts";
import { bundleReadDir, engineWorkerModule } from "../boot/bundle.ts";

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * The run's agents: the list `prepare()` resolved, or (a spec made without
 * it, a test's) loaded here, in the host.
 */
function runAgents(spec: EngineSpec): AgentDefinition[] {
  return (spec.resolvedAgents ?? loadAgents({
    workspace: spec.workspace,
    configDir: spec.configDir,
    configAgents: spec.configAgents,
    untrustedProject: spec.projectTrusted === false,
  })).agents;
}

/**
 * Whether any answer could allow a webfetch call in this run: a person or
 * `--yes` to approve an ask, or a rule (in config, a flag, or an agent's
 * definition) that names webfetch. A headless run with none of these can
 * only refuse webfetch, so the engine gets no network beyond its own hosts.
 */
export function webfetchMayRun(spec: EngineSpec): boolean {
  // The layers merge key by key, so the last one that sets `webfetch` decides it.
  const setting = spec.permissionLayers.findLast((layer) =>
    layer.permission.webfetch !== undefined
  );
  if (
    setting?.permission.webfetch === "deny" ||
    // Claude Code's spelling (`WebFetch`) is a flag too (src/permission/claude_rules.ts).
    spec.flags.deny.some((rule) => rule.trim().toLowerCase() === "webfetch")
  ) {
    return false;
  }
  if (spec.interactive || spec.flags.yes) return true;
  const names = (value: unknown) => JSON.stringify(value ?? {}).includes("webfetch");
  if (spec.flags.allow.some((rule) => rule.toLowerCase().includes("webfetch"))) return true;
  if (spec.permissionLayers.some((layer) => names(layer.permission)) || names(spec.configAgents)) {
    return true;
  }
  return runAgents(spec).some((agent) => names(agent.permission));
}

/** Hosts the engine may reach: `true` (any) only when webfetch may run. */
export function engineNetHosts(spec: EngineSpec): string[] | true {
  if (webfetchMayRun(spec)) return true;
  const hosts = [hostOf(spec.provider.baseURL)];
  for (const server of mcpServers(spec)) {
    if (server.transport === "stdio") continue;
    hosts.push(hostOf(server.url));
    // A stored login is refreshed from the engine, at its authorization server.
    hosts.push(...oauthHosts(readOAuthRecord(spec.dataDir, server.url)));
  }
  return hosts.filter((host): host is string => host !== null);
}

/**
 * The MCP servers the engine will start: the very list the MCP client gets,
 * resolved once by the host (config and `.mcp.json`, a command given as a
 * list, `${VAR}`s).
 */
function mcpServers(spec: EngineSpec): McpServerConfig[] {
  if (!spec.mcp.enabled) return [];
  return sessionMcpServers(spec).servers.filter((server) => server.enabled);
}

/** Programs the engine starts besides the sandbox launcher: stdio MCP servers. */
function mcpPrograms(spec: EngineSpec): string[] {
  return mcpServers(spec).flatMap((server) => server.transport === "stdio" ? [server.command] : []);
}

export function permissionsFor(spec: EngineSpec): Deno.PermissionOptionsObject {
  const permissions = workerPermissions({
    mode: spec.sandbox.mode,
    workspace: spec.workspace,
    addDirs: spec.sandbox.addDirs,
    dataDir: spec.dataDir,
    // Instruction files and skills are read up to the git root, and skills
    // written for other tools where they live. Agent files are not read in
    // the Worker at all: the host resolved them into the spec.
    configDirs: [
      spec.configDir,
      findGitRoot(spec.workspace) ?? spec.workspace,
      ...[".claude/skills", ".agents/skills"].map((dir) => path.join(homeDir(), dir)),
      // Bundled, the engine loads its own chunks when first needed (scripts/build.ts).
      ...(bundleReadDir() ? [bundleReadDir()!] : []),
    ],
    netHosts: engineNetHosts(spec),
    envNames: spec.sandbox.env,
    // The yaml library (agent and skill frontmatter) reads these debug switches
    // on every parse; without them any agent file would crash the engine.
    // SKIFF_GREP chooses grep's engine (docs/tools.md). The proxy names tell
    // the connect probe and webfetch that fetch goes through a proxy.
    engineEnvNames: ["LOG_TOKENS", "LOG_STREAM", "SKIFF_GREP", ...PROXY_VARIABLES],
  });
  const run = permissions.run;
  // `setsid` starts each command as the leader of its own session (src/tools/process/_process_group.ts).
  const leaders = Deno.build.os === "linux" ? SETSID_PATHS : [];
  if (Array.isArray(run)) permissions.run = [...run, "sh", ...leaders, ...mcpPrograms(spec)];
  return permissions;
}

/** Drops what a session's events and questions would reach once it has closed. */
const CLOSED_IO: EngineIO = { event: () => {}, ask: () => Promise.resolve("deny") };

/** How a session in an `EngineWorker` ends. */
export interface EngineSessionOptions {
  /** The event types `io.event` wants (see `init` in engine/protocol.ts); @default all */
  events?: readonly string[];
  /**
   * The Worker stays for the next session (host/engine_pool.ts): its close
   * does not end the Worker, unless the session was aborted, crashed or did
   * not close cleanly. @default false: the Worker ends with the session
   */
  keep?: boolean;
}

/**
 * The terminal side of one engine Worker: each session it runs is a fresh
 * engine built by `init` (src/engine/worker_main.ts), driven by requests
 * matched to their replies (lib/rpc.ts). A Worker started for one session
 * and one kept for the next task are driven by this same client.
 */
export class EngineWorker {
  readonly #worker: Worker;
  readonly #permissions: Deno.PermissionOptionsObject;
  readonly #writer: ReturnType<typeof fileWriterFor>;
  readonly #rpc: RpcClient<EngineRequest>;
  /** Sessions this Worker ran before: a late event of theirs reaches no one. */
  readonly #closedSessions = new Set<string>();
  #io: EngineIO = CLOSED_IO;
  #initialised = false;
  #crashed = false;
  #ended = false;
  /** Whether another session may run here; false once aborted, crashed or closed badly. */
  reusable = true;
  /** A session is open in it now. */
  busy = false;
  /** How many sessions it has run. */
  sessions = 0;

  /** `released`: called when a session closes and when the Worker ends. */
  constructor(
    worker: Worker,
    permissions: Deno.PermissionOptionsObject,
    private readonly released: (worker: EngineWorker) => void = () => {},
  ) {
    this.#worker = worker;
    this.#permissions = permissions;
    this.#writer = fileWriterFor(
      permissions,
      (reply) => this.#send({ type: "files", reply }),
      (error) => this.#send({ type: "files-gone", message: error.message }),
    );
    this.#rpc = new RpcClient((id, request) => this.#send({ ...request, id } as ToEngine));
    worker.onmessage = (message: MessageEvent<FromEngine>) => void this.#receive(message.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#crashed = true;
      this.#rpc.fail(peerCrashed(
        "the session engine",
        event.message,
        'What was stored so far is kept; continue with: skiff run --continue "…"',
      ));
      this.end();
    };
  }

  async #receive(data: FromEngine): Promise<void> {
    if (data.type === "event") {
      if (!this.#closedSessions.has(data.event.session_id)) this.#io.event(data.event);
    } else if (data.type === "files") {
      this.#writer?.serve(data.request);
    } else if (data.type === "editor") {
      try {
        const text = await relayEditorRequest(data.request, this.#io.editor, this.#permissions);
        this.#send({ type: "editor", id: data.id, text });
      } catch (error) {
        this.#send({ type: "editor", id: data.id, error: toErrorData(error) });
      }
    } else if (data.type === "ask") {
      const answer = await this.#io.ask(data.request);
      this.#send({ type: "answer", id: data.id, answer });
    } else if (data.type === "timings") {
      addWorkerMarks(data.marks);
    } else if (data.type === "result") {
      this.#rpc.resolve(data.id, data.value);
    } else {
      this.#rpc.reject(data.id, fromErrorData(data.error));
    }
  }

  // A dead or ended Worker answers nothing: a request to it fails at once (lib/rpc.ts).
  #send(message: ToEngine): void {
    if (!this.#rpc.failure) this.#worker.postMessage(message);
  }

  #request<T>(request: EngineRequest): Promise<T> {
    return this.#rpc.request<T>(request);
  }

  /**
   * A fresh engine for `spec` in this Worker. The confined writer's channel
   * goes with the first `init` only; the Worker keeps routing writes through it.
   */
  session(spec: EngineSpec, io: EngineIO, options: EngineSessionOptions = {}): EngineHandle {
    this.busy = true;
    this.sessions++;
    this.#io = io;
    const files = !this.#initialised && this.#writer !== null;
    const editor = io.editor && { read: !!io.editor.read, write: !!io.editor.write };
    this.#send({ type: "init", spec, files, events: options.events, editor, timings: timingsOn() });
    this.#initialised = true;
    let sessionId: string | undefined;
    let closed = false;
    return {
      open: async (
        selector,
      ) => (sessionId = await this.#request<string>({ type: "open", selector })),
      run: (request) => this.#request({ type: "run", request }),
      runTool: (name, input, callOptions) =>
        this.#request({
          type: "tool",
          name,
          input,
          inOrder: callOptions?.inOrder,
          cancelId: callOptions?.cancelId,
          typedByPerson: callOptions?.typedByPerson,
        }),
      cancelTool: (cancelId) => {
        if (!closed) this.#send({ type: "cancel-tool", cancelId });
      },
      compact: (focus) => this.#request({ type: "compact", focus }),
      mcpStatus: () => this.#request({ type: "mcp-status" }),
      notifyIdle: () => {
        if (!closed) this.#send({ type: "idle" });
      },
      abort: () => {
        if (closed) return;
        // Stopped mid-call: what it left running is not the next session's to meet.
        this.reusable = false;
        this.#send({ type: "abort" });
      },
      collect: () => this.#send({ type: "collect" }),
      close: async (closeOptions) => {
        if (closed) return;
        closed = true;
        // A Worker that ends with its session ends right after the answer, and
        // its end closes the store (engine/handle.ts, `ending`).
        const ending = !options.keep || undefined;
        try {
          // A crashed engine cannot answer; ending its Worker is all that is left.
          if (!this.#rpc.failure) {
            await this.#request({ type: "close", keepHold: closeOptions?.keepHold, ending });
          }
        } catch (error) {
          this.reusable = false;
          throw error;
        } finally {
          if (sessionId) this.#closedSessions.add(sessionId);
          this.#io = CLOSED_IO;
          this.busy = false;
          if (!options.keep || this.crashed || !this.reusable) this.end();
          else this.released(this);
        }
      },
    };
  }

  /** The Worker died: no request of it will ever be answered. */
  get crashed(): boolean {
    return this.#crashed;
  }

  /** Ends the Worker (and its writer's thread) for good; a session still open there fails. */
  end(): void {
    this.reusable = false;
    if (this.#ended) return;
    this.#ended = true;
    this.#rpc.fail(new Error("the session engine was stopped before it answered"));
    this.#worker.terminate();
    this.#writer?.close();
    this.released(this);
  }
}

/**
 * The engine for one session in a Worker of its own, which ends with the
 * session. `workerModule` is replaceable so a test can stand in a Worker
 * that crashes;
 * @default the engine Worker, bundled when a fresh build is there (bundle.ts)
 * `events`: the event types `io.event` wants (see `init` in engine/protocol.ts);
 * @default all
 */
export function startInWorker(
  spec: EngineSpec,
  io: EngineIO,
  workerModule: URL = engineWorkerModule(),
  events?: readonly string[],
): Promise<EngineHandle> {
  Deno.mkdirSync(spec.dataDir, { recursive: true });
  const permissions = permissionsFor(spec);
  // The Worker main.ts started with these very permissions, when it did (prewarm.ts).
  const worker = takePrewarmed(permissions, workerModule) ??
    newEngineWorker(workerModule, permissions);
  return Promise.resolve(new EngineWorker(worker, permissions).session(spec, io, { events }));
}

/** A new engine Worker with exactly `permissions`. */
export function newEngineWorker(
  workerModule: URL,
  permissions: Deno.PermissionOptionsObject,
): Worker {
  return new Worker(workerModule, { type: "module", name: "skiff-engine", deno: { permissions } });
}

/**
 * The confined writer for the engine's file tools, writable exactly where
 * the engine may write; null (writes stay on the engine's thread) when the
 * writer cannot start, e.g. without `--allow-ffi` in this process. `serve`
 * passes it one of the engine's requests; each reply goes to `reply`, and
 * the writer's death to `gone`.
 *
 * Its Worker starts at the first write, not with the session: a run that
 * writes nothing (`skiff tool read`, a question) does not pay for a second
 * thread. The writer gets exactly the folders the engine may write and
 * confines itself the same way; this side only passes the messages through.
 */
export function fileWriterFor(
  permissions: Deno.PermissionOptionsObject,
  reply: (reply: WriterReply) => void,
  gone: (error: Error) => void = () => {},
): { serve(request: WriterRequest): void; close(): void } | null {
  if (!Array.isArray(permissions.write)) return null;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
  const writable = permissions.write.map(String);
  let writer: ConfinedWriter | undefined;
  return {
    serve(request) {
      if (!writer) {
        try {
          writer = startConfinedWriter(writable);
        } catch (error) {
          reply({
            id: request.id,
            ok: false,
            error: { name: "Error", message: `the file writer failed to start: ${error}` },
          });
          return;
        }
        writer.link.listen(reply, gone);
      }
      writer.link.send(request);
    },
    close() {
      writer?.close();
    },
  };
}
