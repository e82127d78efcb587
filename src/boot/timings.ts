/**
 * `SKIFF_TIMINGS=1`: start-up phases on stderr when the process ends, each in
 * milliseconds since the runtime started (`performance.timeOrigin`), so
 * `deno task bench` and a person chasing a slow start see where time goes.
 * Off, `mark` costs one boolean test. The engine's Worker may not read the
 * environment: it notes its own few moments (`WorkerMarks`) and sends them
 * when the terminal side asks, and they are printed after the terminal
 * side's, named `worker:…`, on the same clock.
 */
let enabled: boolean | undefined;
const marks: { name: string; at: number }[] = [];
/** The Worker's marks, already on this thread's clock. */
const peerMarks: { name: string; at: number }[] = [];

function on(): boolean {
  if (enabled === undefined) {
    try {
      enabled = Deno.env.get("SKIFF_TIMINGS") === "1";
    } catch {
      enabled = false; // no env permission (a Worker): never on
    }
  }
  return enabled;
}

/** Records that a phase ended now. */
export function mark(name: string): void {
  if (on()) marks.push({ name, at: performance.now() });
}

/** Whether SKIFF_TIMINGS is on for this process (the Worker is told so). */
export function timingsOn(): boolean {
  return on();
}

/** A moment as milliseconds since the epoch: comparable between threads. */
export function absoluteNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Another thread's marks (`at`: `absoluteNow()` there), kept under
 * `prefix`, on this thread's clock.
 */
export function addPeerMarks(list: readonly { name: string; at: number }[], prefix: string): void {
  if (!on()) return;
  for (const entry of list) {
    peerMarks.push({ name: prefix + entry.name, at: entry.at - performance.timeOrigin });
  }
}

/**
 * The phases as `skiff timings: name=12.3 …` (empty when off or nothing
 * marked): this thread's in the order marked, then the Worker's.
 */
export function timingsLine(): string {
  if (!on() || marks.length === 0) return "";
  return "skiff timings: " +
    [...marks, ...peerMarks].map((entry) => `${entry.name}=${entry.at.toFixed(1)}`).join(" ");
}

/**
 * The few moments the engine's Worker notes for SKIFF_TIMINGS, whether or
 * not anyone asks (a handful of numbers), and sends with its close when the
 * terminal side asked at `init`.
 */
export class WorkerMarks {
  readonly #noted: { name: string; at: number }[] = [];
  #once = new Set<string>();

  /** Notes `name` now; a name already noted is not noted again. */
  note(name: string): void {
    if (this.#once.has(name)) return;
    this.#once.add(name);
    this.#noted.push({ name, at: absoluteNow() });
  }

  /** What was noted, handed over and forgotten (a kept Worker notes its next session anew). */
  take(): { name: string; at: number }[] {
    const taken = this.#noted.splice(0);
    this.#once = new Set();
    return taken;
  }
}

/** Prints the phases on stderr (when on). */
export function reportTimings(): void {
  const line = timingsLine();
  if (line) console.error(line);
}
