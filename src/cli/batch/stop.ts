/**
 * Ctrl-C in a batch, per running task. The first Ctrl-C lets a task end the
 * tool calls it is running (a command finishes, a write lands and is
 * recorded), then stops it as Ctrl-C stops `skiff run`; a task waiting on
 * the model stops at once, having nothing half done. A second Ctrl-C stops
 * every task at once. Tracked from the task's own events, so the engine
 * needs no new message.
 */
import type { SkiffEvent } from "../../contracts/events.ts";

export class TaskStopper {
  readonly #running = new Map<string, string>();
  #abort: (() => void) | undefined;
  #stopAfterCalls = false;
  #stopped = false;
  #turn = 0;
  #lastTool: string | undefined;
  #stoppedAt = "";

  /** The task's engine exists: `abort` stops it (at once if a stop was already asked for). */
  attach(abort: () => void): void {
    this.#abort = abort;
    if (this.#stopped) abort();
    else if (this.#stopAfterCalls && !this.#running.size) this.#stop();
  }

  /** Every event of the task passes here. */
  observe(event: SkiffEvent): void {
    if (event.type === "turn.started") this.#turn = event.turn;
    else if (event.type === "tool.started") this.#running.set(event.call_id, event.tool);
    else if (event.type === "tool.completed") {
      this.#running.delete(event.call_id);
      this.#lastTool = event.tool;
      if (this.#stopAfterCalls && !this.#running.size) this.#stop();
    }
  }

  /** First Ctrl-C: stop once the tool calls running now have ended (now, if none runs). */
  stopAfterCurrentCalls(): void {
    this.#stopAfterCalls = true;
    if (!this.#running.size) this.#stop();
  }

  /** Second Ctrl-C: stop now, a running command too. */
  stopNow(): void {
    if (this.#running.size) this.#stoppedAt = `during ${this.#runningNames()} (turn ${this.#turn})`;
    this.#stop();
  }

  /** Where the task stopped, for the batch record and `--resume`. */
  where(): string {
    return this.#stoppedAt;
  }

  #runningNames(): string {
    return [...new Set(this.#running.values())].join(", ");
  }

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stoppedAt ||= this.#lastTool
      ? `after its ${this.#lastTool} call ended (turn ${this.#turn})`
      : this.#turn
      ? `while waiting for the model (turn ${this.#turn})`
      : "before its first turn";
    this.#abort?.();
  }
}
