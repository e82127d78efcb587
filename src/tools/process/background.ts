/**
 * Commands started by `bash` with `background: true`: a dev server, a watcher,
 * a long build. Each runs in its own process group with its output buffered
 * (bounded, oldest dropped first) until the `process` tool reads it; stopping
 * one stops its whole group, and `stopAll` at session end leaves nothing
 * running behind the user's back.
 */
import type { BackgroundTable, CommandUndo, ProcessLauncher } from "../tool.ts";
import { ToolError } from "../tool.ts";
import { type GroupExit, type RunningGroup, settlesWithin, startGroup } from "./_process_group.ts";

export interface BackgroundOptions {
  /** Unread characters kept per process. @default 1000000 */
  outputCap?: number;
  /** Time between SIGTERM and SIGKILL when stopping. @default 2000 */
  killGraceMs?: number;
  /** What a command changed is filed for undo when it ends. */
  commandUndo?: CommandUndo;
}

interface Entry {
  id: string;
  command: string;
  group: RunningGroup;
  unread: string[];
  unreadLength: number;
  dropped: number;
  exit: GroupExit | null;
  /** Resolves once it ended and what it changed was put back (the guard) and filed for undo. */
  settled: Promise<void>;
}

export class BackgroundProcesses implements BackgroundTable {
  #entries = new Map<string, Entry>();
  #next = 1;
  readonly #outputCap: number;
  readonly #killGraceMs: number | undefined;
  readonly #commandUndo: CommandUndo | undefined;

  constructor(private readonly launcher: ProcessLauncher, options: BackgroundOptions = {}) {
    this.#outputCap = options.outputCap ?? 1_000_000;
    this.#killGraceMs = options.killGraceMs;
    this.#commandUndo = options.commandUndo;
  }

  async start(command: string, cwd: string, signal?: AbortSignal): Promise<string> {
    const id = `bg${this.#next++}`;
    const entry: Partial<Entry> & { unread: string[] } = {
      id,
      command,
      unread: [],
      unreadLength: 0,
      dropped: 0,
      exit: null,
    };
    const undoAfter = await this.#commandUndo?.before();
    const guardCheck = this.launcher.guard?.before();
    const group = await startGroup({
      launcher: this.launcher,
      command,
      cwd,
      killGraceMs: this.#killGraceMs,
      onOutput: (text) => this.#buffer(entry as Entry, text),
    });
    entry.group = group;
    this.#entries.set(id, entry as Entry);
    entry.settled = group.done.then(async (exit) => {
      // Files that run code later, changed by the command, are put back when it ends.
      const reverted = guardCheck?.();
      if (reverted) this.#buffer(entry as Entry, `\n${reverted}\n`);
      await undoAfter?.();
      entry.exit = exit;
    });
    signal?.addEventListener("abort", () => void group.stop(), { once: true });
    return id;
  }

  #buffer(entry: Entry, text: string): void {
    entry.unread.push(text);
    entry.unreadLength += text.length;
    if (entry.unreadLength > this.#outputCap) {
      const joined = entry.unread.join("");
      const kept = joined.slice(-this.#outputCap);
      entry.dropped += joined.length - kept.length;
      entry.unread = [kept];
      entry.unreadLength = kept.length;
    }
  }

  /** Output since the last read; waits up to `waitMs` for the process to exit. */
  async output(
    id: string,
    waitMs = 0,
  ): Promise<{ output: string; exitCode: number | null; running: boolean }> {
    const entry = this.#get(id);
    if (waitMs > 0 && !entry.exit) await settlesWithin(entry.group.done, waitMs);
    const exit = entry.exit;
    return { output: this.#take(entry), exitCode: exit?.code ?? null, running: !exit };
  }

  async stop(id: string): Promise<{ output: string; exitCode: number | null }> {
    const entry = this.#get(id);
    const exit = entry.exit ?? await entry.group.stop();
    return { output: this.#take(entry), exitCode: exit.code };
  }

  /**
   * Stops every command still running and waits until what each changed in
   * protected paths is put back; returns the commands that were running.
   * At session end, and before a run's checks (nothing may change the
   * workspace while it is judged).
   */
  async stopAll(): Promise<string[]> {
    const entries = [...this.#entries.values()];
    const running = entries.filter((entry) => !entry.exit).map((entry) => entry.command);
    await Promise.all(entries.map(async (entry) => {
      await entry.group.stop();
      await entry.settled;
    }));
    return running;
  }

  /** Ids with their commands, for messages that help the model pick one. */
  list(): { id: string; command: string; running: boolean }[] {
    return [...this.#entries.values()].map((entry) => ({
      id: entry.id,
      command: entry.command,
      running: !entry.exit,
    }));
  }

  #get(id: string): Entry {
    const entry = this.#entries.get(id);
    if (entry) return entry;
    const known = [...this.#entries.keys()];
    throw new ToolError(
      "not_found",
      `No background process with id "${id}".`,
      known.length
        ? `Known ids: ${known.join(", ")}.`
        : "No background process was started in this session; start one with bash and background: true.",
    );
  }

  #take(entry: Entry): string {
    const dropped = entry.dropped
      ? `[${entry.dropped} earlier characters were dropped; read output more often]\n`
      : "";
    const text = dropped + entry.unread.join("");
    entry.unread = [];
    entry.unreadLength = 0;
    entry.dropped = 0;
    return text;
  }
}
