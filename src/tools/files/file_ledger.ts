/**
 * What this session knows about the files it touched: which content the model
 * has seen (read-before-edit, compared by content hash, never mtime), which
 * files a prompt changed (snapshots for undo), and one lock per file so two
 * edits of the same file never interleave.
 */
import { ToolError } from "../../contracts/tool_call.ts";
import { hashContent, type SnapshotSink } from "../../contracts/snapshot_sink.ts";

export { hashContent, type SnapshotSink };

export class FileLedger {
  #seen = new Map<string, string>();
  #seenChanged = false;
  #written = new Set<string>();
  #snapshotted = new Set<string>();
  /** Paths changed (or about to be) since `takeChanged` last asked. */
  #changed = new Set<string>();
  #locks = new Map<string, Promise<unknown>>();
  #prompt = 0;

  constructor(
    private readonly sink?: SnapshotSink,
    seen?: Iterable<[string, string]>,
  ) {
    if (seen) { for (const [path, hash] of seen) this.#seen.set(path, hash); }
  }

  /** The user prompt snapshots are filed under (undo's unit); each run begins its own. */
  beginPrompt(prompt: number): void {
    this.#prompt = prompt;
    this.#snapshotted.clear();
  }

  get prompt(): number {
    return this.#prompt;
  }

  /** The model has now seen this exact content of `path`. */
  markRead(path: string, content: Uint8Array | string): void {
    this.#see(path, hashContent(content));
  }

  /** skiff wrote this content itself: the model's view is current. */
  markWritten(path: string, content: Uint8Array | string): void {
    this.#see(path, hashContent(content));
    this.#written.add(path);
    this.#changed.add(path);
  }

  #see(path: string, hash: string): void {
    if (this.#seen.get(path) === hash) return;
    this.#seen.set(path, hash);
    this.#seenChanged = true;
  }

  /**
   * Whether what the model has seen changed since the last call (the first
   * call: since the ledger was made): a caller that saves the ledger after
   * each tool call saves only then.
   */
  takeSeenChanged(): boolean {
    const changed = this.#seenChanged;
    this.#seenChanged = false;
    return changed;
  }

  /** A command changed these files (src/undo/command_snapshots.ts). */
  noteChanged(paths: Iterable<string>): void {
    for (const path of paths) this.#changed.add(path);
  }

  /**
   * The files changed since the last call, by the file tools (every change
   * goes through `snapshot` first) or by commands (`noteChanged`): whose
   * undo after-state a `skiff tool` call records.
   */
  takeChanged(): string[] {
    const changed = [...this.#changed];
    this.#changed.clear();
    return changed;
  }

  /** Paths skiff wrote in this session (by this ledger's lifetime). */
  writtenPaths(): string[] {
    return [...this.#written];
  }

  wasRead(path: string): boolean {
    return this.#seen.has(path);
  }

  /** Path → hash of the content last seen, for persisting with the session. */
  entries(): [string, string][] {
    return [...this.#seen.entries()];
  }

  /**
   * Throws unless the model read this file in this session and the file is
   * unchanged since. `current` null means the file does not exist, which is
   * always editable (there is nothing to overwrite).
   */
  assertEditable(path: string, current: Uint8Array | null, displayPath = path): void {
    if (current === null) return;
    const seen = this.#seen.get(path);
    if (seen === undefined) {
      throw new ToolError(
        "file_not_read",
        `${displayPath} has not been read in this session.`,
        `Call read on ${displayPath} first, then retry the change.`,
      );
    }
    if (seen !== hashContent(current)) {
      throw new ToolError(
        "file_changed",
        `${displayPath} changed on disk since it was last read.`,
        `Read ${displayPath} again to see its current content, then redo the change.`,
      );
    }
  }

  /**
   * Keep what `path` was before its first change in this prompt, and file
   * what it is about to become (`after`; null: removed) before the write.
   */
  async snapshot(
    path: string,
    before: Uint8Array | null,
    after?: Uint8Array | null,
  ): Promise<void> {
    this.#changed.add(path);
    if (!this.#snapshotted.has(path)) {
      this.#snapshotted.add(path);
      await this.sink?.save(this.#prompt, path, before);
    }
    if (after !== undefined) await this.sink?.expect?.(this.#prompt, path, after);
  }

  /** Run `work` while holding the lock for `path`. */
  async withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(path) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    this.#locks.set(path, chained);
    await previous.catch(() => {});
    try {
      return await work();
    } finally {
      release();
      if (this.#locks.get(path) === chained) this.#locks.delete(path);
    }
  }
}
