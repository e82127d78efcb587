/**
 * Full garbage collections that skiff asks for itself. V8 collects lazily: in
 * a `skiff run` of 100 turns its heap limit let the engine Worker's heap grow
 * from ~20 to ~43 MB of mostly garbage with one major collection in the whole
 * session (docs/performance.md, "Per turn and memory"). Two moments are used:
 * the chat after each turn, while the person reads the answer
 * (`collectGarbage`), and the agent loop before a model request once the
 * heap has grown by a share of what the last collection left
 * (`HeapGrowthCollector`), so a collection costs in proportion to the
 * memory it saves. `gc` exists when the runtime is started with
 * `--v8-flags=--expose-gc` (deno.json's tasks and the compiled binary are);
 * without it nothing here collects. Nothing caps the heap: a session that
 * needs more memory still gets it.
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
}

/**
 * Collects when the memory has grown by `max(minimumBytes, share × baseline)`
 * since the baseline: what the last collection left, lowered whenever a
 * reading is lower (V8 collected on its own). One per isolate: the engine's
 * turns all share `collectIfGrown` below.
 */
export class HeapGrowthCollector {
  #used: () => number;
  #collect: () => boolean;
  #minimumBytes: number;
  #share: number;
  #baseline: number | undefined;
  #collections = 0;
  /** The runtime has no `gc`: nothing to measure for. */
  #unable = false;

  constructor(options: HeapGrowthOptions = {}) {
    this.#used = options.used ?? javaScriptBytes;
    this.#collect = options.collect ?? (() => collectGarbage());
    this.#minimumBytes = options.minimumBytes ?? 4 * 1024 * 1024;
    this.#share = options.share ?? 0.25;
  }

  /** Full collections run so far. */
  get collections(): number {
    return this.#collections;
  }

  /** Collects if the memory grew enough since the baseline; true when it did. */
  collectIfGrown(): boolean {
    if (this.#unable) return false;
    const used = this.#used();
    if (this.#baseline === undefined || used < this.#baseline) {
      this.#baseline = used;
      return false;
    }
    const allowance = Math.max(this.#minimumBytes, this.#baseline * this.#share);
    if (used - this.#baseline < allowance) return false;
    if (!this.#collect()) {
      this.#unable = true;
      return false;
    }
    this.#collections++;
    this.#baseline = this.#used();
    return true;
  }
}

const engineHeap = new HeapGrowthCollector();

/** The agent loop's step between turns, in the isolate the engine runs in. */
export function collectIfGrown(): boolean {
  return engineHeap.collectIfGrown();
}
