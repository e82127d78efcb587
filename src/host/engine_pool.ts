/**
 * Engine Workers kept for the next task. A batch task's session closes and
 * the Worker that ran it is kept; the next task whose Worker would get exactly
 * the same Deno permissions (the descriptor `permissionsFor` derives, compared
 * whole) starts its fresh engine in it: its own store handle, session row,
 * ledger, tools, gate, MCP clients and abort, as a new Worker would. What it
 * skips is the Worker's start and the engine's module graph, most of a task's
 * time (docs/performance.md, "Batch"). A Worker that crashed, whose session
 * was aborted (Ctrl-C) or whose session did not close cleanly is ended, not
 * kept. The module-level state inside the Worker that outlives a session is
 * listed in docs/batch.md ("How many at once"): caches of pure results, and
 * the route of file writes to the confined writer, which has the same
 * folders because the permissions are the same.
 */
import { fromErrorData } from "../contracts/errors.ts";
import type { FromEngine, ToEngine } from "../engine/protocol.ts";
import type { EngineIO, EngineSpec } from "../engine/types.ts";
import type { EngineHandle } from "../engine/handle.ts";
import { fileWriterFor, permissionsFor } from "./worker_client.ts";
import { engineWorkerModule } from "../boot/bundle.ts";
import { engineStart } from "./start.ts";

export { permissionKey } from "../lib/permission_key.ts";
import { permissionKey } from "../lib/permission_key.ts";

/** Drops what a session's events and questions would reach once it has closed. */
const CLOSED_IO: EngineIO = { event: () => {}, ask: () => Promise.resolve("deny") };

/** One engine Worker and the session it runs now, if any. */
class KeptWorker {
  readonly #worker: Worker;
  readonly #writer: ReturnType<typeof fileWriterFor>;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(e: Error): void }>();
  /** Sessions this Worker ran before: a late event of theirs reaches no one. */
  readonly #closedSessions = new Set<string>();
  #nextId = 1;
  #io: EngineIO = CLOSED_IO;
  #crashed: Error | undefined;
  #initialised = false;
  #ended = false;
  /** Whether the next task may run here; false once aborted, crashed or closed badly. */
  reusable = true;
  busy = false;
  sessions = 0;

  constructor(
    readonly key: string,
    permissions: Deno.PermissionOptionsObject,
    workerModule: URL,
    /** Called when a session closes and when the Worker ends. */
    private readonly released: (worker: KeptWorker) => void,
  ) {
    this.#worker = new Worker(workerModule, {
      type: "module",
      name: "skiff-engine",
      deno: { permissions },
    });
    this.#writer = fileWriterFor(permissions, (reply) => this.#send({ type: "files", reply }));
    this.#worker.onmessage = (message: MessageEvent<FromEngine>) => this.#receive(message.data);
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#crashed = new Error(
        `the session engine crashed: ${event.message}. What was stored so far is kept; continue with: skiff run --continue "…"`,
      );
      for (const waiter of this.#pending.values()) waiter.reject(this.#crashed);
      this.#pending.clear();
      this.end();
    };
  }

  async #receive(data: FromEngine): Promise<void> {
    if (data.type === "event") {
      if (!this.#closedSessions.has(data.event.session_id)) this.#io.event(data.event);
    } else if (data.type === "files") {
      this.#writer?.serve(data.request);
    } else if (data.type === "ask") {
      const answer = await this.#io.ask(data.request);
      this.#send({ type: "answer", id: data.id, answer });
    } else {
      const waiter = this.#pending.get(data.id);
      this.#pending.delete(data.id);
      if (data.type === "result") waiter?.resolve(data.value);
      else waiter?.reject(fromErrorData(data.error));
    }
  }

  #send(message: ToEngine): void {
    if (!this.#crashed) this.#worker.postMessage(message);
  }

  #request<T>(message: DistributiveOmit<Extract<ToEngine, { id: number }>, "id">): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#crashed) return reject(this.#crashed);
      const id = this.#nextId++;
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#send({ ...message, id } as ToEngine);
    });
  }

  /**
   * A fresh engine for `spec` in this Worker: the Worker side builds it anew
   * on every `init` (src/engine/worker_main.ts). The confined writer's channel
   * goes with the first only; the Worker keeps routing writes through it.
   */
  session(spec: EngineSpec, io: EngineIO, events?: readonly string[]): EngineHandle {
    this.busy = true;
    this.sessions++;
    this.#io = io;
    // The route of file writes is set up once; it outlives each session in the Worker.
    this.#send({ type: "init", spec, files: !this.#initialised && this.#writer !== null, events });
    this.#initialised = true;
    let sessionId: string | undefined;
    let closed = false;
    return {
      open: async (
        selector,
      ) => (sessionId = await this.#request<string>({ type: "open", selector })),
      run: (request) => this.#request({ type: "run", request }),
      runTool: (name, input, options) =>
        this.#request({ type: "tool", name, input, inOrder: options?.inOrder }),
      compact: (focus) => this.#request({ type: "compact", focus }),
      mcpStatus: () => this.#request({ type: "mcp-status" }),
      abort: () => {
        if (closed) return;
        // Stopped mid-call: what it left running is not the next task's to meet.
        this.reusable = false;
        this.#send({ type: "abort" });
      },
      close: async (options) => {
        if (closed) return;
        closed = true;
        try {
          if (!this.#crashed) await this.#request({ type: "close", keepHold: options?.keepHold });
        } catch (error) {
          this.reusable = false;
          throw error;
        } finally {
          if (sessionId) this.#closedSessions.add(sessionId);
          this.#io = CLOSED_IO;
          this.busy = false;
          if (this.#crashed || !this.reusable) this.end();
          else this.released(this);
        }
      },
    };
  }

  get crashed(): boolean {
    return this.#crashed !== undefined;
  }

  /** Ends the Worker (and its writer's thread) for good. */
  end(): void {
    this.reusable = false;
    if (this.#ended) return;
    this.#ended = true;
    this.#worker.terminate();
    this.#writer?.close();
    this.released(this);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface EngineWorkersOptions {
  /**
   * The Worker's module, replaceable so a test can stand in one that crashes.
   * @default the engine Worker, bundled when a fresh build is there (bundle.ts)
   */
  workerModule?: URL;
}

/**
 * At most `max` engine Workers, each reused by the next task with the same
 * permission descriptor; a task whose descriptor no idle Worker has starts
 * its own, ending the longest idle Worker first when `max` are up. Callers
 * run at most `max` tasks at once (a batch's `-j`).
 */
export class EngineWorkers {
  readonly #workers: KeptWorker[] = [];
  readonly #workerModule: URL;

  constructor(readonly max: number, options: EngineWorkersOptions = {}) {
    this.#workerModule = options.workerModule ?? engineWorkerModule();
  }

  /** How many Workers are up, and how many sessions each has run (tests, the bench). */
  get sessionsPerWorker(): number[] {
    return this.#workers.map((worker) => worker.sessions);
  }

  /**
   * The engine for one task, as `startEngine` (src/host/start.ts) gives it:
   * its sessions held for this run, a plan's done criteria written here.
   */
  startEngine(spec: EngineSpec, io: EngineIO, events?: readonly string[]): EngineHandle {
    const start = engineStart(spec, io);
    return start.handle(this.#take(start.spec).session(start.spec, start.io, events));
  }

  #take(spec: EngineSpec): KeptWorker {
    Deno.mkdirSync(spec.dataDir, { recursive: true });
    const permissions = permissionsFor(spec);
    const key = permissionKey(permissions);
    const idle = this.#workers.find((worker) =>
      !worker.busy && worker.reusable && !worker.crashed && worker.key === key
    );
    if (idle) {
      // Last in the list: the longest idle Worker stays first.
      this.#remove(idle);
      this.#workers.push(idle);
      return idle;
    }
    if (this.#workers.length >= this.max) this.#workers.find((worker) => !worker.busy)?.end();
    const worker = new KeptWorker(key, permissions, this.#workerModule, (released) => {
      if (!released.reusable) this.#remove(released);
    });
    this.#workers.push(worker);
    return worker;
  }

  #remove(worker: KeptWorker): void {
    const index = this.#workers.indexOf(worker);
    if (index >= 0) this.#workers.splice(index, 1);
  }

  /** Ends every Worker; the busy ones' sessions fail. */
  close(): void {
    for (const worker of [...this.#workers]) worker.end();
  }
}
