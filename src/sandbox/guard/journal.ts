/**
 * The command guard's journal (command_guard.ts): what a running command's
 * check must put back, kept on disk so the revert survives skiff's death.
 * Before each command the guard writes its survey (paths, kinds, modes,
 * contents) to `<data>/guard-journal/<random>.json` (mode 0600, in a folder
 * of mode 0700 that commands cannot read, like the rest of the data folder)
 * and holds an exclusive lock on that file while the command runs; once its check has reverted,
 * it removes the file. A file nobody holds locked belongs to a skiff that
 * died mid-command (SIGKILL, the OOM killer, a closed CI job): it is
 * replayed — the check runs against that survey — by
 *
 * - the watcher, a bash process started with the session's first guarded
 *   command, outside every sandbox, that waits on a pipe from skiff: when
 *   skiff is gone the pipe ends and it runs `skiff __guard-replay <folder>`
 *   (sandbox/guard/replay.ts) at once;
 * - the next start of skiff with this data folder (`replayGuardJournals`),
 *   for where the watcher could not run (no bash) or was killed too.
 *
 * The lock is `flock`: released by the kernel when its holder dies, however.
 */
import { fileURLToPath } from "../../lib/path.ts";
import { spawn } from "../../lib/spawn.ts";
import { denoCacheDir } from "../landlock/launcher.ts";
import { ENTRY_URL } from "../../contracts/entry.ts";

/** The hidden subcommand main.ts dispatches to this module's `runStep`. */
export const GUARD_REPLAY_STEP = "__guard-replay";

/** A survey's entry as the journal keeps it: bytes as base64. */
export type JournalEntry =
  | { kind: "file"; mode: number | null; digest: string | null; bytes: string | null }
  | { kind: "dir"; mode: number | null }
  | { kind: "link"; target: string };

export interface JournalRecord {
  roots: string[];
  protect?: readonly string[];
  /** The survey's `GitProtection`, as JSON. */
  protection: unknown;
  entries: [string, JournalEntry][];
}

export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(text);
}

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** One command's journal file, locked while its command runs. */
export class JournalFile {
  readonly #file: Deno.FsFile;
  readonly #path: string;

  private constructor(file: Deno.FsFile, filePath: string) {
    this.#file = file;
    this.#path = filePath;
  }

  /**
   * Writes `record` under `folder` (made with mode 0700 if missing) and
   * keeps it locked; null when it cannot (the check still runs in process).
   */
  static write(folder: string, record: JournalRecord): JournalFile | null {
    const name = `${folder}/${crypto.randomUUID()}`;
    const filePath = `${name}.json`;
    let file: Deno.FsFile | null = null;
    try {
      Deno.mkdirSync(folder, { recursive: true, mode: 0o700 });
      // Written under another name and locked first: a replay (which takes `*.json` only) never
      // sees it unlocked; the lock stays with the file through the rename.
      file = Deno.openSync(`${name}.part`, { write: true, createNew: true, mode: 0o600 });
      file.lockSync(true);
      const bytes = new TextEncoder().encode(JSON.stringify(record));
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      Deno.renameSync(`${name}.part`, filePath);
      return new JournalFile(file, filePath);
    } catch {
      file?.close();
      for (const leftover of [`${name}.part`, filePath]) {
        try {
          Deno.removeSync(leftover);
        } catch { /* not made */ }
      }
      return null;
    }
  }

  /** The check has run: the file goes, then its lock. */
  done(): void {
    try {
      Deno.removeSync(this.#path);
    } catch { /* removed by a replay that found it unlocked: cannot happen while held */ }
    this.#file.close();
  }
}

/**
 * Every journal in `folder` nobody holds and `accept` takes (a session
 * replays only its own workspace's, which it may write): each passed to
 * `replay` (which reverts and describes what it did), then removed. A file
 * that does not parse was cut short before its command started, and only goes.
 */
export function replayGuardJournals(
  folder: string,
  replay: (record: JournalRecord) => string | null,
  accept: (record: JournalRecord) => boolean = () => true,
): string[] {
  const reports: string[] = [];
  let names: string[];
  try {
    names = [...Deno.readDirSync(folder)].filter((entry) => entry.name.endsWith(".json"))
      .map((entry) => entry.name);
  } catch {
    return reports; // no journal folder: nothing ever ran
  }
  for (const name of names) {
    const filePath = `${folder}/${name}`;
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(filePath, { read: true });
    } catch {
      continue; // replayed meanwhile
    }
    try {
      if (!file.tryLockSync(true)) continue; // its command still runs
      let record: JournalRecord | null = null;
      try {
        record = JSON.parse(new TextDecoder().decode(Deno.readFileSync(filePath)));
      } catch { /* cut short */ }
      if (record && !accept(record)) continue;
      const report = record ? replay(record) : null;
      if (report) reports.push(report);
      Deno.removeSync(filePath);
    } catch {
      // Removed by another replay between our open and lock, or unreadable: left as it is.
    } finally {
      file.close();
    }
  }
  return reports;
}

/**
 * The argv of the replay step: a compiled binary runs itself; from source,
 * `deno run` with reading and writing only (the revert's own rights).
 */
export function guardReplayArgv(folder: string): string[] {
  if (Deno.build.standalone) return [Deno.execPath(), GUARD_REPLAY_STEP, folder];
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-config",
    "--no-lock",
    "--allow-read",
    "--allow-write",
    fileURLToPath(ENTRY_URL),
    GUARD_REPLAY_STEP,
    folder,
  ];
}

/**
 * The watcher's script: `$1` the journal folder, then the replay argv. It
 * ignores the signals a terminal or Ctrl-C sends the group, waits for its
 * input to end (skiff is gone), and runs the replay only when a journal is
 * left.
 */
const WATCHER_SCRIPT = "trap '' HUP INT QUIT TERM PIPE; IFS= read -r _; d=$1; shift; " +
  'for f in "$d"/*.json; do [ -e "$f" ] && exec "$@"; done; exit 0';

const watching = new Map<string, WritableStreamDefaultWriter<Uint8Array>>();

/**
 * Starts the watcher for `folder` once per process, with `bash` (the
 * engine may start it; needs `--allow-run` for it). Returns false when it
 * could not; the next start of skiff then replays instead.
 */
export function watchForDeath(folder: string, bash: string | undefined): boolean {
  if (watching.has(folder)) return true;
  if (!bash) return false;
  try {
    const child = spawn(bash, {
      args: ["-c", WATCHER_SCRIPT, "skiff-guard-watch", folder, ...guardReplayArgv(folder)],
      // None of skiff's own environment (the provider key); Deno's cache for the step.
      env: {
        PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        DENO_DIR: denoCacheDir(),
      },
      stdin: "piped",
      stdout: "null",
      stderr: "null",
      // In its own process group: a Ctrl-C or a closed terminal reaches skiff's group only.
      newGroup: true,
    });
    child.unref();
    // Held, never written: the pipe ends only when this process does.
    watching.set(folder, child.stdin.getWriter());
    return true;
  } catch {
    return false;
  }
}
