/**
 * Runs the engine in a Worker whose Deno permissions come from the sandbox
 * mode: the workspace (read-write, or read-only), extra folders, the data
 * folder, config folders, the provider's and MCP servers' hosts. A bug in a
 * tool's own path checks then meets NotCapable instead of the user's files.
 */
import { fromErrorData } from "../contracts/errors.ts";
import * as path from "../lib/path.ts";
import { homeDir } from "../sandbox/paths.ts";
import { loadAgents } from "../definitions/agents/load.ts";
import type { AgentDefinition } from "../definitions/agents/types.ts";
import { findGitRoot } from "../engine/loop/git_summary.ts";
import { workerPermissions } from "../sandbox/worker_permissions.ts";
import { SETSID_PATHS } from "../sandbox/shell.ts";
import { PROXY_VARIABLES } from "../provider/connect_probe.ts";
import {
  type ConfinedWriter,
  startConfinedWriter,
  type WriterReply,
  type WriterRequest,
} from "../sandbox/writer/confined_writer.ts";
import type { McpServerConfig } from "../mcp/config.ts";
import { sessionMcpServers } from "../mcp/sources.ts";
import type { FromEngine, ToEngine } from "../engine/protocol.ts";
import type { EngineIO, EngineSpec } from "../engine/types.ts";
import type { EngineHandle } from "../engine/handle.ts";
import { takePrewarmed } from "../boot/prewarm.ts";
import { bundleReadDir, engineWorkerModule } from "../boot/bundle.ts";

/** A request to the engine before it gets its id. */
type RequestMessage = Extract<ToEngine, { id: number }> extends infer M
  ? M extends { id: number } ? Omit<M, "id"> : never
  : never;

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
    spec.flags.deny.some((rule) => rule.trim() === "webfetch")
  ) {
    return false;
  }
  if (spec.interactive || spec.flags.yes) return true;
  const names = (value: unknown) => JSON.stringify(value ?? {}).includes("webfetch");
  if (spec.flags.allow.some((rule) => rule.includes("webfetch"))) return true;
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
    if (server.transport !== "stdio") hosts.push(hostOf(server.url));
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

/**
 * `workerModule` is replaceable so a test can stand in a Worker that crashes;
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
  const worker = takePrewarmed(permissions, workerModule) ?? new Worker(workerModule, {
    type: "module",
    name: "skiff-engine",
    deno: { permissions },
  });
  const writer = fileWriterFor(permissions, (reply) => send({ type: "files", reply }));
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  // Set once the Worker has died: nothing will ever answer again, so every
  // later request fails at once instead of waiting forever.
  let crashed: Error | undefined;
  const send = (message: ToEngine) => {
    if (!crashed) worker.postMessage(message);
  };
  const request = <T>(message: RequestMessage) =>
    new Promise<T>((resolve, reject) => {
      if (crashed) return reject(crashed);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      send({ ...message, id } as ToEngine);
    });

  worker.onmessage = async (message: MessageEvent<FromEngine>) => {
    const data = message.data;
    if (data.type === "event") io.event(data.event);
    else if (data.type === "files") writer?.serve(data.request);
    else if (data.type === "ask") {
      send({ type: "answer", id: data.id, answer: await io.ask(data.request) });
    } else {
      const waiter = pending.get(data.id);
      pending.delete(data.id);
      if (!waiter) return;
      if (data.type === "result") waiter.resolve(data.value);
      else waiter.reject(fromErrorData(data.error));
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    crashed = new Error(
      `the session engine crashed: ${event.message}. What was stored so far is kept; continue with: skiff run --continue "…"`,
    );
    for (const waiter of pending.values()) waiter.reject(crashed);
    pending.clear();
    worker.terminate();
    writer?.close();
  };

  send({ type: "init", spec, files: writer !== null, events });
  return Promise.resolve({
    open: (selector) => request({ type: "open", selector }),
    run: (runRequest) => request({ type: "run", request: runRequest }),
    runTool: (name, input, options) =>
      request({ type: "tool", name, input, inOrder: options?.inOrder }),
    compact: (focus) => request({ type: "compact", focus }),
    mcpStatus: () => request({ type: "mcp-status" }),
    abort: () => send({ type: "abort" }),
    collect: () => send({ type: "collect" }),
    async close(options) {
      try {
        // A crashed engine cannot answer; terminating its Worker is all that is left.
        // The Worker ends right after: its end closes the store (engine/handle.ts, `ending`).
        if (!crashed) {
          await request({ type: "close", keepHold: options?.keepHold, ending: true });
        }
      } finally {
        worker.terminate();
        writer?.close();
      }
    },
  });
}

/**
 * The confined writer for the engine's file tools, writable exactly where
 * the engine may write; null (writes stay on the engine's thread) when the
 * writer cannot start, e.g. without `--allow-ffi` in this process. `serve`
 * passes it one of the engine's requests; each reply goes to `reply`.
 *
 * Its Worker starts at the first write, not with the session: a run that
 * writes nothing (`skiff tool read`, a question) does not pay for a second
 * thread. The writer gets exactly the folders the engine may write and
 * confines itself the same way; this side only passes the messages through.
 */
export function fileWriterFor(
  permissions: Deno.PermissionOptionsObject,
  reply: (reply: WriterReply) => void,
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
        writer.link.listen(reply);
      }
      writer.link.send(request);
    },
    close() {
      writer?.close();
    },
  };
}
