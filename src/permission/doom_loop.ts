/**
 * Notices a model repeating itself: the same tool with the same input three
 * times in a row. The third call then needs `doom_loop` approval (ask by
 * default), so a stuck model stops burning turns unnoticed. Only a model's
 * calls are recorded: a client or a script may repeat itself (gate.ts,
 * `notByModel`).
 */

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

export class DoomLoopTracker {
  #last = "";
  #count = 0;

  constructor(readonly threshold = 3) {}

  /** Record a call; true when it completes `threshold` identical calls in a row. */
  record(tool: string, input: unknown): boolean {
    const signature = `${tool}\u0000${stable(input)}`;
    this.#count = signature === this.#last ? this.#count + 1 : 1;
    this.#last = signature;
    return this.#count >= this.threshold;
  }

  reset(): void {
    this.#last = "";
    this.#count = 0;
  }
}
