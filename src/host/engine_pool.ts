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
import type { EngineIO, EngineSpec } from "../engine/types.ts";
import type { EngineHandle } from "../engine/handle.ts";
import { EngineWorker, newEngineWorker, permissionsFor } from "./worker_client.ts";
import { engineWorkerModule } from "../boot/bundle.ts";
import { engineStart } from "./start.ts";

export { permissionKey } from "../lib/permission_key.ts";
import { permissionKey } from "../lib/permission_key.ts";

/** One engine Worker and the permission descriptor it was started with. */
interface KeptWorker {
  key: string;
  client: EngineWorker;
}

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
    return this.#workers.map((worker) => worker.client.sessions);
  }

  /**
   * The engine for one task, as `startEngine` (src/host/start.ts) gives it:
   * its sessions held for this run, a plan's done criteria written here.
   */
  startEngine(spec: EngineSpec, io: EngineIO, events?: readonly string[]): EngineHandle {
    const start = engineStart(spec, io);
    const worker = this.#take(start.spec).client;
    return start.handle(worker.session(start.spec, start.io, { events, keep: true }));
  }

  #take(spec: EngineSpec): KeptWorker {
    Deno.mkdirSync(spec.dataDir, { recursive: true });
    const permissions = permissionsFor(spec);
    const key = permissionKey(permissions);
    const idle = this.#workers.find(({ client, key: its }) =>
      !client.busy && client.reusable && !client.crashed && its === key
    );
    if (idle) {
      // Last in the list: the longest idle Worker stays first.
      this.#remove(idle);
      this.#workers.push(idle);
      return idle;
    }
    if (this.#workers.length >= this.max) {
      this.#workers.find(({ client }) => !client.busy)?.client.end();
    }
    const worker: KeptWorker = {
      key,
      client: new EngineWorker(
        newEngineWorker(this.#workerModule, permissions),
        permissions,
        (released) => {
          if (!released.reusable) this.#remove(worker);
        },
      ),
    };
    this.#workers.push(worker);
    return worker;
  }

  #remove(worker: KeptWorker): void {
    const index = this.#workers.indexOf(worker);
    if (index >= 0) this.#workers.splice(index, 1);
  }

  /** Ends every Worker; the busy ones' sessions fail. */
  close(): void {
    for (const worker of [...this.#workers]) worker.client.end();
  }
}
