/**
 * Progress of a batch on stderr, in the words of the summary
 * (src/cli/batch/report.ts): succeeded, failed, interrupted. At a terminal
 * one line is redrawn (with the running count and an ETA from the mean time
 * of finished tasks); elsewhere each task's end is one line, so a CI log
 * reads as a list.
 */
import { neutraliseControls } from "../../ui/safe_text.ts";
import type { TaskStatus } from "./report.ts";

export class BatchProgress {
  succeeded = 0;
  failed = 0;
  interrupted = 0;
  running = 0;
  readonly #started = Date.now();

  constructor(
    private readonly total: number,
    private readonly terminal: boolean,
    private readonly write: (text: string) => void = (text) =>
      Deno.stderr.writeSync(new TextEncoder().encode(text)),
  ) {}

  /** Tasks that ended, whichever way. */
  get ended(): number {
    return this.succeeded + this.failed + this.interrupted;
  }

  taskStarted(): void {
    this.running++;
    this.#draw();
  }

  taskEnded(
    id: string,
    status: Exclude<TaskStatus, "pending">,
    exitCode: number,
    detail: string,
  ): void {
    this.running--;
    this[status]++;
    if (!this.terminal) {
      const mark = status === "succeeded"
        ? "ok  "
        : status === "failed"
        ? `FAIL (exit ${exitCode})`
        : "interrupted";
      // An interrupted task's detail says where it stopped ("interrupted after …").
      const shown = status === "interrupted" ? detail.replace(/^interrupted\s*/, "") : detail;
      const why = shown ? `: ${neutraliseControls(shown)}` : "";
      this.write(`[${this.ended}/${this.total}] ${mark} ${neutraliseControls(id)}${why}\n`);
    }
    this.#draw();
  }

  /** Lines of their own (a task's changes put back), above the redrawn line at a terminal. */
  note(text: string): void {
    const lines = neutraliseControls(text) + "\n";
    this.write(this.terminal ? `\r\x1b[2K${lines}` : lines);
    this.#draw();
  }

  /** Seconds left, from the mean pace so far; undefined before any task ended. */
  etaSeconds(now = Date.now()): number | undefined {
    if (!this.ended) return undefined;
    const perTask = (now - this.#started) / this.ended;
    return Math.round((perTask * (this.total - this.ended)) / 1000);
  }

  line(): string {
    const eta = this.etaSeconds();
    return `batch: ${this.succeeded} succeeded, ${this.failed} failed` +
      (this.interrupted ? `, ${this.interrupted} interrupted` : "") +
      `, ${this.running} running of ${this.total}` +
      (eta === undefined ? "" : `, ETA ${formatSeconds(eta)}`);
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
