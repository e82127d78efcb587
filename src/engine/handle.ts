/**
 * Starts a session engine and hands back a small handle to drive it. The
 * engine owns the store, the provider and the tools; the caller (a CLI
 * command) owns the terminal and answers approval requests through EngineIO.
 */
import { openStore, type Store } from "../store/store.ts";
import type { EngineIO, EngineSpec, RunRequest, ToolCallOptions, ToolCallResult } from "./types.ts";
import type { RunResult } from "./engine.ts";
import type { McpServerStatus } from "../mcp/manager.ts";
import type { ChatProvider } from "../provider/types.ts";
import type { SkiffEvent } from "../contracts/events.ts";
import type { StartCut } from "./start_cut.ts";
import { importLazy } from "../boot/lazy_import.ts";
import { selectSession, type SessionSelector } from "./select_session.ts";

// Named here too for the front ends, which speak to the engine through this module.
export type { SessionSelector };

export interface EngineHandle {
  /** Opens or creates the session; resolves to its id. */
  open(selector: SessionSelector): Promise<string>;
  run(request: RunRequest): Promise<RunResult>;
  /**
   * One tool call without a model. `inOrder`: it runs after every earlier
   * call that asked the same (JSON Lines sent ahead, `skiff tool`), so a
   * caller may send the next before this one's answer; other calls run as
   * they come (an MCP client's, in parallel).
   */
  runTool(name: string, input: unknown, options?: ToolCallOptions): Promise<ToolCallResult>;
  /**
   * Stops the one call given `cancelId` (ToolCallOptions), its processes
   * with it; nothing when it has ended. Optional: a stand-in engine in a
   * test may not offer it.
   */
  cancelTool?(cancelId: string): void;
  abort(): void;
  /**
   * Ends the session and the engine. The run lets go of the sessions it holds
   * as the engine's store closes, unless `keepHold`: a start cut by
   * `--max-time` still writes the held session's end (session_hold.ts).
   * `ending`: the thread (a Worker) ends right after, and its end closes the
   * store: everything is committed by then, and only SQLite's last checkpoint
   * is left, which then runs on the ending thread, not on the way to the
   * answer (docs/performance.md). A process that exits meanwhile
   * leaves the write-ahead log to the next opener, as after any exit.
   */
  close(options?: { keepHold?: boolean; ending?: boolean }): Promise<void>;
  /**
   * The chat's `/compact`: compacts the open session now (the code `skiff
   * compact` runs). Optional: a stand-in engine in a test may not offer it.
   */
  compact?(focus?: string): Promise<{ changed: boolean; text: string }>;
  /** The chat's `/mcp`: the open session's MCP servers and their state. */
  mcpStatus?(): Promise<McpServerStatus[]>;
  /**
   * The chat's input has waited for the person: the Notification hooks'
   * `idle_prompt` run where the engine runs. Told, not awaited: a hook's
   * failure is reported as any hook's is.
   */
  notifyIdle?(): void;
  /**
   * `skiff run`'s open cut by `--max-time`: stops the engine, ends the session
   * as cut by the limit and resolves to its closing events (start_cut.ts).
   * Offered by the handle `startEngine` returns.
   */
  endCutStart?(cut: StartCut): Promise<SkiffEvent[]>;
  /**
   * The chat between turns: a full garbage collection where the engine runs
   * (its Worker), at a moment nobody waits on (lib/collect.ts).
   */
  collect?(): void;
}

/** The SharedArrayBuffer of a batch's rate limiter (src/provider/rate_limiter.ts), when the spec carries one. */
function rateLimiterOf(spec: EngineSpec): SharedArrayBuffer | undefined {
  return (spec.provider as { rateLimiter?: SharedArrayBuffer }).rateLimiter;
}

/** The engine's own modules, and the model client's, loaded when needed. */
export interface EngineModules {
  engine(): Promise<typeof import("./engine.ts")>;
  provider(): Promise<ProviderModules>;
}

export type ProviderModules = [
  typeof import("../provider/create_provider.ts"),
  typeof import("../provider/cost.ts"),
  typeof import("../provider/rate_limiter.ts"),
  typeof import("../provider/dialects/model_dialect.ts"),
];

/**
 * Computed specifiers (importLazy), for an engine on the terminal side
 * (SKIFF_ENGINE=inline, tests): Deno loads every statically written
 * `import()` when it builds the module graph, and this module is in the
 * terminal side's graph, which runs the engine in a Worker and must not pay
 * for it.
 */
const computedModules: EngineModules = {
  engine: () => importLazy("src/engine/engine.ts"),
  provider: () =>
    Promise.all([
      importLazy<ProviderModules[0]>("src/provider/create_provider.ts"),
      importLazy<ProviderModules[1]>("src/provider/cost.ts"),
      importLazy<ProviderModules[2]>("src/provider/rate_limiter.ts"),
      importLazy<ProviderModules[3]>("src/provider/dialects/model_dialect.ts"),
    ]),
};

/**
 * The session's model client. It loads the openai SDK only when a request is
 * made: `skiff tool` and `skiff mcp serve` (agent "tool") never make one, so
 * they never load it; a run with a model starts loading it at once, beside
 * the engine's own modules, and makes the client as soon as it is loaded
 * (the SDK's first construction is costly), not when the session opens.
 * A client that cannot be made is reported by `ready()` and the first request.
 */
export function lazyProvider(
  spec: EngineSpec,
  loadModules: EngineModules["provider"],
): { provider: ChatProvider; ready(): Promise<ChatProvider> } {
  let modules: Promise<ProviderModules> | undefined;
  const load = () => modules ??= loadModules();
  let client: Promise<ChatProvider> | undefined;
  const made = () =>
    client ??= load().then(([{ createProvider }, { priceFor }, { RateLimiter }]) =>
      createProvider({
        baseURL: spec.provider.baseURL,
        apiKey: spec.provider.apiKey,
        requestTimeoutMs: spec.provider.requestTimeoutMs,
        maxRetries: spec.provider.maxRetries,
        connectTimeoutMs: spec.provider.connectTimeoutMs,
        // Which wire protocol each model is spoken to in, and how the key is sent.
        wire: spec.provider.wire,
        modelWires: spec.provider.modelWires,
        auth: spec.provider.auth,
        apiVersion: spec.provider.apiVersion,
        headers: spec.provider.headers,
        dialect: spec.provider.dialect,
        // A batch's shared endpoint pace (src/cli/batch/batch.ts); shared, not copied, into the Worker.
        limiter: rateLimiterOf(spec) ? new RateLimiter(rateLimiterOf(spec)) : undefined,
        price: (model) => priceFor(model, spec.settings.models)?.price,
      })
    ).then(async (base) =>
      // Each model's tool-schema dialect, text tool calls and reasoning effort (src/provider/dialects/model_dialect.ts).
      (await load())[3].withModelDialect(base, spec.provider.modelDialects, {
        effort: spec.provider.reasoningEffort,
        flag: spec.provider.reasoningEffortFlag,
      })
    );
  if (spec.agent !== "tool") void made().catch(() => {}); // ready() reports a failure
  const provider: ChatProvider = {
    baseURL: spec.provider.baseURL.replace(/\/+$/, ""),
    stream: async (request, handlers, signal) => (await made()).stream(request, handlers, signal),
  };
  return { provider, ready: made };
}

/** The store `openStoreAhead` opened, and its folder. */
let ahead: { dataDir: string; store: Store } | undefined;

/**
 * Opens `dataDir`'s store now, for the engine this thread starts next: the
 * pre-started Worker does this while it waits for its spec (prewarm.ts), so
 * the opening is not on the way to the session. A failure is left
 * for that start's own opening to meet and report.
 */
export function openStoreAhead(dataDir: string): Store | undefined {
  try {
    const store = openStore(dataDir);
    ahead?.store.close();
    ahead = { dataDir, store };
    return store;
  } catch {
    return undefined; // The engine's own openStore fails the same way, and says so.
  }
}

/**
 * The store opened ahead for `dataDir` (taken: once), else a new one; one
 * opened ahead for another folder is closed.
 */
export function storeFor(dataDir: string): Store {
  const early = ahead;
  ahead = undefined;
  if (early?.dataDir === dataDir) return early.store;
  early?.store.close();
  return openStore(dataDir);
}

/**
 * The engine in this thread. `modules` loads the engine's and the model
 * client's modules: the Worker passes statically written imports (they are
 * in its module graph, which its permissions let it load; it may not read
 * skiff's sources otherwise); by default computed ones (SKIFF_ENGINE=inline),
 * so the terminal side's graph holds neither.
 */
export async function startInProcess(
  spec: EngineSpec,
  io: EngineIO,
  modules: EngineModules = computedModules,
): Promise<EngineHandle> {
  const { provider, ready } = lazyProvider(spec, modules.provider);
  const { Engine, startSandboxProbe } = await modules.engine();
  // Probing the sandbox runs a process: it goes on while the store and the
  // session open. Only the first session takes it; a later one probes again.
  let sandboxes = startSandboxProbe(spec);
  const store = storeFor(spec.dataDir);
  let engine: InstanceType<typeof Engine> | undefined;
  // Ctrl-C can come while the session is still opening (MCP servers start
  // then); remember it so the run that follows stops at once.
  let aborted = false;
  // A tool call may be sent before the session's opening is answered (`skiff
  // tool` sends its first call at once): it waits for the first opening here,
  // and fails with it.
  const firstOpen = Promise.withResolvers<void>();
  let opened = false;
  firstOpen.promise.catch(() => {}); // Told to the opener, and to each call that waits.
  return {
    async open(selector) {
      try {
        const existing = selectSession(store, spec.workspace, selector);
        // A model run's client is ready (or has failed, saying why) before the session opens.
        if (spec.agent !== "tool") await ready();
        engine = new Engine(spec, io, store, provider);
        if (aborted) engine.abort();
        const probe = sandboxes;
        sandboxes = undefined;
        const session = await engine.open(existing, probe, selector.promptNext);
        opened = true;
        firstOpen.resolve();
        return session.id;
      } catch (error) {
        firstOpen.reject(error);
        throw error;
      }
    },
    run: (request) => engine!.run(request),
    // Once open, a call goes straight to the engine (no wait per call in the long-lived mode).
    runTool: (name, input, options) =>
      opened
        ? engine!.runTool(name, input, options)
        : firstOpen.promise.then(() => engine!.runTool(name, input, options)),
    cancelTool: (cancelId) => engine?.cancelTool(cancelId),
    compact: (focus) => engine!.compact(focus),
    mcpStatus: () => Promise.resolve(engine!.mcpStatus()),
    notifyIdle: () => void engine?.notifyIdle().catch(() => {}),
    abort: () => {
      aborted = true;
      engine?.abort();
    },
    async close(options) {
      try {
        await engine?.close();
      } finally {
        try {
          // The run lets go of what it holds here, where a store is open anyway
          // (session_hold.ts opens one on the terminal side only when it must).
          if (spec.run && !options?.keepHold) store.locks.release(spec.run.run_id);
        } finally {
          if (!options?.ending) store.close();
        }
      }
    },
  };
}
