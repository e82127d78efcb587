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
/** The engine Worker's marks, already on this thread's clock. */
const workerMarks: { name: string; at: number }[] = [];

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
function absoluteNow(): number {
  return performance.timeOrigin + performance.now();
}

/** What the engine Worker's marks are named under on the timings line. */
export const WORKER_MARK = "worker:";

/** The engine Worker's marks (`at`: `absoluteNow()` there), kept on this thread's clock. */
export function addWorkerMarks(list: readonly { name: string; at: number }[]): void {
  if (!on()) return;
  for (const entry of list) {
    workerMarks.push({ name: WORKER_MARK + entry.name, at: entry.at - performance.timeOrigin });
  }
}

/**
 * The phases as `skiff timings: name=12.3 …` (empty when off or nothing
 * marked): this thread's in the order marked, then the Worker's.
 */
export function timingsLine(): string {
  if (!on() || marks.length === 0) return "";
  return "skiff timings: " +
    [...marks, ...workerMarks].map((entry) => `${entry.name}=${entry.at.toFixed(1)}`).join(" ");
}

/**
 * The few moments the engine's Worker notes for SKIFF_TIMINGS, whether or
 * not anyone asks (a handful of numbers), and sends with its close when the
 * terminal side asked at `init`.
 */
export class WorkerMarks {
  readonly #noted: { name: string; at: number }[] = [];

  /** Notes `name` now; a name noted since the last `take` is not noted again. */
  note(name: string): void {
    if (!this.#noted.some((entry) => entry.name === name)) {
      this.#noted.push({ name, at: absoluteNow() });
    }
  }

  /** What was noted, handed over and forgotten (a kept Worker notes its next session anew). */
  take(): { name: string; at: number }[] {
    return this.#noted.splice(0);
  }
}

/** Prints the phases on stderr (when on). */
export function reportTimings(): void {
  const line = timingsLine();
  if (line) console.error(line);
}
