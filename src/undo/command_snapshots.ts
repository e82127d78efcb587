/**
 * Undo for what commands change. The file tools snapshot each file before
 * they write it; a command (`bash`) writes what it likes, so the workspace
 * itself is snapshotted around each command: a private git object store in
 * skiff's data folder (`<data>/undo/<workspace hash>/`, one index per
 * session) takes the tree before and after the command, and every file the
 * command created, changed or deleted — and every folder it created — is
 * filed as an undo snapshot of the prompt, like a file tool's change. Files
 * git ignores (.gitignore, `.git` itself, nested repositories' contents) and
 * symlinks are not covered.
 *
 * git runs with the workspace's own configuration out of reach: no system
 * or global config, its git folder in the data folder (a repository's
 * `.git/config` is never read), hooks and fsmonitor off, bare repositories
 * only when named. `.gitattributes` can name a filter, but a filter runs only
 * when config defines it, and only this store's config is read.
 *
 * Cost: `git add -A` twice per command (stat-cached: about 0.1 s on a
 * 15,000-file tree, see scripts/bench_command_undo.ts), and `git write-tree`
 * after each that changed the index; the first command of a workspace
 * hashes every file once. Needs `--allow-run=git` and read and
 * write access to the workspace and the data folder.
 */
import * as path from "../lib/path.ts";
import { sha256Hex } from "../lib/sha256.ts";
import { output, ProgramUnavailable } from "../lib/spawn.ts";

/** One change a command made, as undo needs it. */
export interface CommandChange {
  /** Absolute path in the workspace. */
  path: string;
  /** Content before the command; null when it did not exist. */
  before: Uint8Array | null;
  /** Mode to restore (null: keep the current file's); FOLDER_MODE for a created folder. */
  mode: number | null;
}

/** The mode filed for a folder the command created: undo removes it when empty. */
export const FOLDER_MODE = 0o040000;

export interface CommandSnapshotOptions {
  /** Realpath of the workspace. */
  workspace: string;
  dataDir: string;
  /** Names this session's index. */
  sessionId: string;
  /** Workspace content above this is not snapshotted. @default 500 MiB */
  maxBytes?: number;
  /** Files the changes as undo snapshots of the prompt running now. */
  record(changes: CommandChange[]): void;
  /** Said once, when command changes stop being covered and why. */
  warn(message: string): void;
  /**
   * Files in the undo journal, before the command starts, that it is about
   * to run from workspace tree `tree`; the function returned marks it
   * completed once its changes are recorded. A command never completed was
   * killed while it ran: `changesSince` finds what it changed.
   */
  journal?(tree: string): () => void;
}

const DEFAULT_MAX_BYTES = 500 * 1024 * 1024;
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288e0ee4904";

/** The `-c` settings of every git call: none of the workspace's own configuration applies. */
const ISOLATION = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.autocrlf=false",
  "core.symlinks=true",
  "core.quotePath=false",
  "safe.bareRepository=explicit",
  "gc.auto=0",
  "maintenance.auto=false",
  // The index ends with a hash of its content, which `#tree` compares.
  "index.skipHash=false",
].flatMap((setting) => ["-c", setting]);

class SnapshotUnavailable extends Error {}

export class CommandSnapshots {
  readonly #options: CommandSnapshotOptions;
  readonly #gitDir: string;
  readonly #index: string;
  #queue: Promise<unknown> = Promise.resolve();
  #state: "new" | "ready" | "off" = "new";
  /** The first tree, begun by `warm`; `done` once it is taken (or failed), never rejecting. */
  #warm: {
    tree: Promise<string | null>;
    done: Promise<void>;
    settled: boolean;
    taken: boolean;
  } | null = null;
  #bytes = 0;
  /** The index's closing hash when `#lastTree` was written from it. */
  #lastStamp: string | null = null;
  #lastTree: string | null = null;

  constructor(options: CommandSnapshotOptions) {
    this.#options = options;
    const key = sha256Hex(options.workspace).slice(0, 16);
    this.#gitDir = path.join(options.dataDir, "undo", key);
    this.#index = path.join(this.#gitDir, `index-${options.sessionId.replace(/[^\w.-]/g, "_")}`);
  }

  /**
   * Takes the tree before a command; call the returned function once it has
   * ended, to file what it changed. Never throws: a store that cannot work
   * turns itself off with one warning, and the command runs as before.
   */
  async before(): Promise<() => Promise<void>> {
    // A first tree still being taken as this command comes is its tree: the workspace is
    // being read right before the command, as here. One taken earlier is read again.
    const warm = this.#warm;
    const early = warm && !warm.settled && !warm.taken;
    if (early) warm.taken = true;
    const start = await (early ? warm.tree : this.#serial(() => this.#tree()))
      .catch((error) => this.#off(error));
    if (!start) return () => Promise.resolve();
    const complete = this.#options.journal?.(start);
    return async () => {
      await this.#serial(async () => {
        const end = await this.#tree();
        if (end && end !== start) this.#options.record(await this.#changes(start, end));
        // Not when the survey failed: undo surveys it again from the journal.
        if (end) complete?.();
      }).catch((error) => this.#off(error));
    };
  }

  /**
   * What changed in the workspace since tree `start` was taken: for a
   * command killed while it ran, whose changes were never recorded. Throws
   * when git cannot tell.
   */
  async changesSince(start: string): Promise<CommandChange[]> {
    try {
      const end = await this.#tree();
      if (!end) throw new SnapshotUnavailable("the snapshot store is off");
      return end === start ? [] : await this.#changes(start, end);
    } finally {
      // This survey's own index, a copy made for it, is not kept.
      if (exists(this.#index)) Deno.removeSync(this.#index);
    }
  }

  /**
   * The session's first command is coming: the store, the index and the
   * size check (`#prepare`), and a tree of the workspace as it is now, start
   * at once, beside the policy's work (and the model's writing of the call).
   * A command whose `before` comes while that tree is still being taken
   * (warmed as the call was admitted) takes it as is; one that comes later
   * re-adds the workspace to the same index, which git's stat cache makes
   * quick, and needs no new tree when nothing changed meanwhile. Later
   * commands find the session prepared: nothing to do ahead. Resolves once
   * the tree is taken; never rejects (a store that cannot work turns off).
   */
  warm(): Promise<void> {
    if (this.#state !== "new" || this.#warm) return Promise.resolve();
    const tree = this.#serial(() => this.#tree());
    const warm = { tree, done: Promise.resolve(), settled: false, taken: false };
    warm.done = tree.then(() => {
      warm.settled = true;
    }, (error) => {
      warm.settled = true;
      this.#off(error);
    });
    this.#warm = warm;
    return warm.done;
  }

  /** Resolves once no snapshot job is left (a warm one included); never rejects. */
  async settled(): Promise<void> {
    await this.#queue;
    await this.#warm?.done;
  }

  /** One git job at a time: the index is shared by the session's parallel calls. */
  #serial<T>(job: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(job, job);
    this.#queue = next.catch(() => {});
    return next;
  }

  #off(error: unknown): null {
    if (this.#state !== "off") {
      this.#state = "off";
      const reason = error instanceof Error ? error.message : String(error);
      this.#options.warn(
        `skiff undo will not cover what commands change in this session: ${reason}. ` +
          "Changes by the file tools are still covered.",
      );
    }
    return null;
  }

  /** The workspace's tree now, or null once off. */
  async #tree(): Promise<string | null> {
    if (this.#state === "off") return null;
    if (this.#state === "new") await this.#prepare();
    await this.#git(["add", "-A", "--ignore-errors", "--", "."], { allowFailure: true });
    // The same index bytes hold the same entries, so the same tree: a command
    // that changed nothing (and nothing changed since the last one) costs one
    // git run here instead of two (git does not rewrite an index it did not change).
    const stamp = this.#indexStamp();
    if (stamp !== null && stamp === this.#lastStamp && this.#lastTree) return this.#lastTree;
    const tree = (await this.#git(["write-tree"])).trim() || EMPTY_TREE;
    // write-tree may store its cache in the index: the stamp is taken after it.
    this.#lastStamp = this.#indexStamp();
    this.#lastTree = tree;
    return tree;
  }

  /**
   * The closing hash of this session's index (SHA-1 or SHA-256: the last 32
   * bytes cover both), or null when it cannot be read or is all zeros (an
   * index written without its hash).
   */
  #indexStamp(): string | null {
    let file: Deno.FsFile | undefined;
    try {
      file = Deno.openSync(this.#index, { read: true });
      const size = file.statSync().size;
      if (size < 64) return null;
      file.seekSync(size - 32, Deno.SeekMode.Start);
      const tail = new Uint8Array(32);
      let read = 0;
      while (read < tail.length) {
        const got = file.readSync(tail.subarray(read));
        if (got === null) return null;
        read += got;
      }
      if (tail.subarray(12).every((byte) => byte === 0)) return null;
      return `${size}:${Array.from(tail, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
    } catch {
      return null;
    } finally {
      file?.close();
    }
  }

  /** The store, this session's index (a copy of the newest one, for its stat cache), the size check. */
  async #prepare(): Promise<void> {
    await this.#initStore();
    const newest = [...Deno.readDirSync(this.#gitDir)]
      // Not a `.lock`: another session's git writing its index there now.
      .filter((entry) =>
        entry.isFile && entry.name.startsWith("index-") && !entry.name.endsWith(".lock")
      )
      .map((entry) => path.join(this.#gitDir, entry.name))
      .sort((a, b) =>
        (Deno.statSync(b).mtime?.getTime() ?? 0) - (Deno.statSync(a).mtime?.getTime() ?? 0)
      )[0];
    if (newest && newest !== this.#index) Deno.copyFileSync(newest, this.#index);
    const listed = await this.#git([
      "ls-files",
      "-z",
      "--cached",
      "--others",
      "--exclude-standard",
    ]);
    const limit = this.#options.maxBytes ?? DEFAULT_MAX_BYTES;
    for (const relative of listed.split("\0")) {
      if (!relative) continue;
      try {
        this.#bytes += Deno.lstatSync(path.join(this.#options.workspace, relative)).size;
      } catch {
        // Gone since it was listed.
      }
      if (this.#bytes > limit) {
        throw new SnapshotUnavailable(
          `the workspace holds more than ${Math.round(limit / 1024 / 1024)} MB that git does not ` +
            "ignore (raise undo.maxSnapshotMB, or list build output in .gitignore)",
        );
      }
    }
    this.#state = "ready";
  }

  /**
   * The workspace's store, made whole in a folder of its own and moved into
   * place: sessions starting together (a batch's tasks) each make it, and two
   * `git init`s in one folder collide.
   */
  async #initStore(): Promise<void> {
    const head = path.join(this.#gitDir, "HEAD");
    if (exists(head)) return;
    Deno.mkdirSync(path.dirname(this.#gitDir), { recursive: true });
    const fresh = Deno.makeTempDirSync({
      dir: path.dirname(this.#gitDir),
      prefix: `.${path.basename(this.#gitDir)}-`,
    });
    try {
      await this.#git(["init", "--bare", "--quiet", fresh], { noWorkTree: true });
      try {
        Deno.renameSync(fresh, this.#gitDir);
      } catch (error) {
        // Another session's store is in place first (or an empty folder of an older skiff).
        if (!exists(head)) {
          if (!isEmptyFolder(this.#gitDir)) throw error;
          Deno.removeSync(this.#gitDir);
          Deno.renameSync(fresh, this.#gitDir);
        }
      }
    } finally {
      // Left only when the other session's store won.
      if (exists(fresh)) Deno.removeSync(fresh, { recursive: true });
    }
  }

  async #changes(start: string, end: string): Promise<CommandChange[]> {
    const raw = await this.#git(["diff-tree", "-r", "-t", "-z", "--no-renames", start, end]);
    const fields = raw.split("\0");
    const changes: CommandChange[] = [];
    const blobs: { change: CommandChange; sha: string }[] = [];
    for (let at = 0; at + 1 < fields.length; at += 2) {
      const [oldMode, newMode, oldSha, , status] = fields[at].replace(/^:/, "").split(" ");
      const where = path.join(this.#options.workspace, fields[at + 1]);
      const wasFile = /^1006|^1007/.test(oldMode);
      const isFile = /^1006|^1007/.test(newMode);
      if (status === "A" && newMode === "040000") {
        changes.push({ path: where, before: null, mode: FOLDER_MODE });
      } else if (status === "A" && isFile) {
        changes.push({ path: where, before: null, mode: null });
      } else if ((status === "M" || status === "D") && wasFile && (isFile || status === "D")) {
        const change = {
          path: where,
          before: new Uint8Array(),
          // git keeps only the executable bit: a chmod that changed it is put back, not other bits.
          mode: status === "D" || oldMode !== newMode ? parseInt(oldMode.slice(-3), 8) : null,
        };
        changes.push(change);
        blobs.push({ change, sha: oldSha });
      }
      // Symlinks, nested repositories and type changes are not covered.
    }
    if (blobs.length) await this.#readBlobs(blobs);
    for (const { change } of blobs) this.#bytes += change.before?.length ?? 0;
    return changes;
  }

  /** Old contents, through one `git cat-file --batch`. */
  async #readBlobs(blobs: { change: CommandChange; sha: string }[]): Promise<void> {
    const batch = await this.#run(["cat-file", "--batch"], {
      stdin: new TextEncoder().encode(blobs.map(({ sha }) => sha).join("\n") + "\n"),
    });
    let at = 0;
    const decoder = new TextDecoder();
    for (const blob of blobs) {
      const lineEnd = batch.indexOf(10, at);
      const header = decoder.decode(batch.subarray(at, lineEnd)).split(" ");
      const size = Number(header[2]);
      if (header[1] !== "blob" || !Number.isFinite(size)) {
        throw new Error(`git cat-file answered "${header.join(" ")}" for ${blob.sha}`);
      }
      blob.change.before = batch.slice(lineEnd + 1, lineEnd + 1 + size);
      at = lineEnd + 1 + size + 1;
    }
  }

  async #git(args: string[], options: { allowFailure?: boolean; noWorkTree?: boolean } = {}) {
    return new TextDecoder().decode(await this.#run(args, options));
  }

  async #run(
    args: string[],
    options: { allowFailure?: boolean; noWorkTree?: boolean; stdin?: Uint8Array } = {},
  ): Promise<Uint8Array> {
    const env: Record<string, string> = {
      PATH: pathVariable(),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
      HOME: this.#gitDir,
    };
    if (!options.noWorkTree) {
      Object.assign(env, {
        GIT_DIR: this.#gitDir,
        GIT_WORK_TREE: this.#options.workspace,
        GIT_INDEX_FILE: this.#index,
      });
    }
    let result;
    try {
      result = await output("git", {
        args: [...ISOLATION, ...args],
        // The store is made outside the workspace, where no repository can be found.
        cwd: options.noWorkTree ? path.dirname(this.#gitDir) : this.#options.workspace,
        env,
        input: options.stdin,
      });
    } catch (error) {
      const cause = error instanceof ProgramUnavailable ? error.cause : error as Error;
      throw new SnapshotUnavailable(`git could not be started (${cause.message})`);
    }
    if (!result.success && !options.allowFailure) {
      const stderr = new TextDecoder().decode(result.stderr).trim().split("\n")[0];
      throw new SnapshotUnavailable(`git ${args[0]} failed: ${stderr}`);
    }
    return result.stdout;
  }
}

/**
 * What a command killed while it ran changed: the workspace now against the
 * tree the undo journal kept from before it ran, through an index of its own.
 * Throws when git cannot tell.
 */
export function changesOfKilledCommand(
  survey: { workspace: string; dataDir: string; tree: string },
): Promise<CommandChange[]> {
  const snapshots = new CommandSnapshots({
    workspace: survey.workspace,
    dataDir: survey.dataDir,
    sessionId: `survey-${crypto.randomUUID()}`,
    maxBytes: Number.POSITIVE_INFINITY,
    record: () => {},
    warn: () => {},
  });
  return snapshots.changesSince(survey.tree);
}

function pathVariable(): string {
  try {
    return Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
  } catch {
    return "/usr/local/bin:/usr/bin:/bin"; // Not readable here (a Worker's env allowlist).
  }
}

function exists(file: string): boolean {
  try {
    Deno.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function isEmptyFolder(folder: string): boolean {
  try {
    return [...Deno.readDirSync(folder)].length === 0;
  } catch {
    return false;
  }
}
