/**
 * Progress of a batch on stderr. At a terminal one line is redrawn
 * (done/running/failed, ETA from the mean time of finished tasks); elsewhere
 * each task's end is one line, so a CI log reads as a list.
 */
import { neutraliseControls } from "../../ui/safe_text.ts";

export class BatchProgress {
  done = 0;
  failed = 0;
  running = 0;
  readonly #started = Date.now();

  constructor(
    private readonly total: number,
    private readonly terminal: boolean,
    private readonly write: (text: string) => void = (text) =>
      Deno.stderr.writeSync(new TextEncoder().encode(text)),
  ) {}

  taskStarted(): void {
    this.running++;
    this.#draw();
  }

  taskEnded(id: string, exitCode: number, detail: string): void {
    this.running--;
    this.done++;
    if (exitCode !== 0) this.failed++;
    if (!this.terminal) {
      const mark = exitCode === 0 ? "ok  " : `FAIL (exit ${exitCode})`;
      const why = detail ? `: ${neutraliseControls(detail)}` : "";
      this.write(`[${this.done}/${this.total}] ${mark} ${neutraliseControls(id)}${why}\n`);
    }
    this.#draw();
  }

  /** Seconds left, from the mean pace so far; undefined before any task ended. */
  etaSeconds(now = Date.now()): number | undefined {
    if (!this.done) return undefined;
    const perTask = (now - this.#started) / this.done;
    return Math.round((perTask * (this.total - this.done)) / 1000);
  }

  line(): string {
    const eta = this.etaSeconds();
    return `batch: ${
      this.done - this.failed
    } done, ${this.running} running, ${this.failed} failed` +
      ` of ${this.total}` + (eta === undefined ? "" : `, ETA ${formatSeconds(eta)}`);
  }

  #draw(): void {
    if (this.terminal) this.write(`\r\x1b[2K${this.line()}`);
  }

  /** Leave the line (terminal) before the summary is printed. */
  finish(): void {
    if (this.terminal) this.write("\n");
  }
}

function formatSeconds(total: number): string {
  const minutes = Math.floor(total / 60);
  return minutes ? `${minutes}m${String(total % 60).padStart(2, "0")}s` : `${total}s`;
}
