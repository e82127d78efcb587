/**
 * `SKIFF_TIMINGS=1`: start-up phases on stderr when the process ends, each in
 * milliseconds since the runtime started (`performance.timeOrigin`), so
 * `deno task bench` and a person chasing a slow start see where time goes.
 * Off, `mark` costs one boolean test. Only the terminal side marks: the
 * engine's Worker may not read the environment.
 */
let enabled: boolean | undefined;
const marks: { name: string; at: number }[] = [];

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

/** The phases as `skiff timings: name=12.3 …` (empty when off or nothing marked). */
export function timingsLine(): string {
  if (!on() || marks.length === 0) return "";
  return "skiff timings: " + marks.map((entry) => `${entry.name}=${entry.at.toFixed(1)}`).join(" ");
}

/** Prints the phases on stderr (when on). */
export function reportTimings(): void {
  const line = timingsLine();
  if (line) console.error(line);
}
