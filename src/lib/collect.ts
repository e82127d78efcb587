/**
 * Full garbage collections that skiff asks for itself. V8 collects lazily: in
 * a `skiff run` of 100 turns its heap limit let the engine Worker's heap grow
 * from ~20 to ~43 MB of mostly garbage with one major collection in the whole
 * session (docs/performance.md, "Per turn and memory"). Two moments are used:
 * the chat after each turn, while the person reads the answer
 * (`collectGarbage`), and the agent loop's turns once the heap has grown by a
 * share of what the last collection left (`HeapGrowthCollector`), so a
 * collection costs in proportion to the memory it saves. The loop asks
 * before each model request; the engine's collection then runs a moment
 * later, while that request is out (`ENGINE_COLLECTION_DELAY_MS`): collected
 * at the turn's start, between two requests, it threw away V8's optimised
 * code for the response streams far more often, and that code's recompiling
 * cost more CPU than the collection. `gc` exists when the runtime is started
 * with `--v8-flags=--expose-gc` (deno.json's tasks and the compiled binary
 * are); without it nothing here collects. Nothing caps the heap: a session
 * that needs more memory still gets it.
 */

type GcScope = { gc?: () => void };

/** One full collection now; false where the runtime has no `gc`. */
export function collectGarbage(scope: GcScope = globalThis as GcScope): boolean {
  if (typeof scope.gc !== "function") return false;
  scope.gc();
  return true;
}

/** Bytes of JavaScript memory a collection can give back: the heap and ArrayBuffers. */
export function javaScriptBytes(): number {
  const usage = Deno.memoryUsage();
  return usage.heapUsed + usage.external;
}

export interface HeapGrowthOptions {
  /** Reads the isolate's JavaScript memory in bytes. @default javaScriptBytes */
  used?: () => number;
  /** Runs a full collection; false when it cannot (no `gc`). @default collectGarbage */
  collect?: () => boolean;
  /** Growth that always suffices. @default 4 MiB */
  minimumBytes?: number;
  /** Growth as a share of the last baseline, when that is more than `minimumBytes`. @default 0.25 */
  share?: number;
  /**
   * Runs a collection that has been decided on: at once by default; the
   * engine's collector hands it to a timer (see `collectIfGrown` below).
   */
  defer?: (run: () => void) => void;
}

/**
 * Collects when the memory has grown by `max(minimumBytes, share × baseline)`
 * since the baseline: what the last collection left, lowered whenever a
 * reading is lower (V8 collected on its own). One per isolate: the engine's
 * turns all share `collectIfGrown` below. While a deferred collection is
 * waiting to run, no other is decided on.
 */
export class HeapGrowthCollector {
  #used: () => number;
  #collect: () => boolean;
  #minimumBytes: number;
  #share: number;
  #defer: (run: () => void) => void;
  #baseline: number | undefined;
  #collections = 0;
  /** A collection is decided on and waits for `defer` to run it. */
  #pending = false;
  /** The runtime has no `gc`: nothing to measure for. */
  #unable = false;

  constructor(options: HeapGrowthOptions = {}) {
    this.#used = options.used ?? javaScriptBytes;
    this.#collect = options.collect ?? (() => collectGarbage());
    this.#minimumBytes = options.minimumBytes ?? 4 * 1024 * 1024;
    this.#share = options.share ?? 0.25;
    this.#defer = options.defer ?? ((run) => run());
  }

  /** Full collections run so far. */
  get collections(): number {
    return this.#collections;
  }

  /**
   * Collects if the memory grew enough since the baseline, or hands the
   * collection to `defer`; true when one ran or is on its way.
   */
  collectIfGrown(): boolean {
    if (this.#unable || this.#pending) return false;
    const used = this.#used();
    if (this.#baseline === undefined || used < this.#baseline) {
      this.#baseline = used;
      return false;
    }
    const allowance = Math.max(this.#minimumBytes, this.#baseline * this.#share);
    if (used - this.#baseline < allowance) return false;
    this.#pending = true;
    this.#defer(() => this.#run());
    return !this.#unable;
  }

  #run(): void {
    this.#pending = false;
    if (!this.#collect()) {
      this.#unable = true;
      return;
    }
    this.#collections++;
    this.#baseline = this.#used();
  }
}

/**
 * How long after the loop asks (before a model request) the engine's
 * collection runs: by then that request is out and its answer is awaited
 * or streaming. In the 300-turn bench (scripts/bench_long_session.ts) a
 * collection at the turn's start was followed by ~43 deoptimisations of
 * optimised code ("embedded weak objects cleared", mostly the web streams
 * the answers arrive through); soon after, far fewer (docs/performance.md).
 */
export const ENGINE_COLLECTION_DELAY_MS = 20;

/**
 * A timer that does not keep the isolate alive (a run that ends first needs
 * no collection); at once where there is no `gc`, which the collector then
 * learns and stops asking: no timer is left behind in a runtime that cannot
 * collect (tests run without `--expose-gc`).
 */
function afterDelay(run: () => void): void {
  if (typeof (globalThis as GcScope).gc !== "function") return run();
  Deno.unrefTimer(setTimeout(run, ENGINE_COLLECTION_DELAY_MS));
}

const engineHeap = new HeapGrowthCollector({ defer: afterDelay });

/** The agent loop's step between turns, in the isolate the engine runs in. */
export function collectIfGrown(): boolean {
  return engineHeap.collectIfGrown();
}
