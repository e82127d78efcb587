/**
 * The check around every command in `workspace-write` mode: what a command
 * may not change — files that run code later (`code_paths.ts`) and git's
 * hooks, config and redirects in every repository (`git_dirs.ts`) — is
 * recorded before it starts and compared once it has ended. A created file
 * is removed, a changed or removed one restored with its old content and
 * mode, and the model is told the command was denied. The OS sandbox already
 * keeps what exists read-only; this covers what did not exist yet (a new
 * `.envrc`, `.git/commondir`, a hook in a fresh repository) and platforms
 * without bubblewrap.
 *
 * Cost: one search of the workspace's folders before and one after each
 * command (names only; contents are read for the few protected files).
 * Needs `--allow-read` and `--allow-write` for the workspace.
 */
import * as path from "../../lib/path.ts";
import { sha256Hex } from "../../lib/sha256.ts";
import {
  anchorMatches,
  CODE_PATHS,
  codePathAnchors,
  codePathPatterns,
  expandCodePath,
  matchingCodePath,
  type NameFilter,
} from "../code_paths.ts";
import {
  createMissingHooksFolders,
  type GitProtection,
  rememberGitProtection,
} from "../protected.ts";
import { isWithin, realpathLenient } from "../paths.ts";
import { writeFileAtomicSync } from "../../lib/atomic_write.ts";
import type { Listings } from "../dir_entries.ts";
import {
  fromBase64,
  type JournalEntry,
  JournalFile,
  type JournalRecord,
  toBase64,
  watchForDeath,
} from "./journal.ts";
import { installedBashPaths } from "../shell.ts";

export interface CommandGuardOptions {
  /** The workspace and `--add-dir`s. */
  roots: string[];
  /** `sandbox.protect`: more patterns like the built-in list. */
  protect?: readonly string[];
  /**
   * The journal folder (sandbox/guard/journal.ts): each command's survey is kept
   * there until its check has run, so a skiff that dies mid-command still
   * has it reverted. None: the check runs in process only.
   */
  journal?: string;
}

type EntryState =
  | {
    kind: "file";
    mode: number | null;
    /**
     * The content's SHA-256 (or why there is none) when `bytes` were not kept;
     * null when they were, and taken only if a comparison needs it.
     */
    digest: string | null;
    bytes: Uint8Array | null;
  }
  | { kind: "dir"; mode: number | null }
  | { kind: "link"; target: string };

interface Survey {
  protection: GitProtection;
  entries: Map<string, EntryState>;
}

export interface RevertedPath {
  path: string;
  change: "created" | "changed" | "removed";
  /** False when the old content was too large to keep and could not be put back. */
  restored: boolean;
}

/** Files above this size are compared by digest only and cannot be restored. */
const KEEP_BYTES = 1_048_576;

/** Config keys that make git run a program or read its setup elsewhere. */
const GIT_CODE_KEYS =
  /^\s*(fsmonitor|hookspath|sshcommand|pager|editor|sequenceeditor|askpass|gitproxy|textconv|command|clean|smudge|process|helper|path|worktree|external|program|cmd|tool|update|uploadpack|receivepack)\s*=|=\s*"?!/im;

function stateOf(target: string, budget: { bytes: number }): EntryState | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(target);
  } catch {
    return null;
  }
  if (info.isSymlink) {
    try {
      return { kind: "link", target: Deno.readLinkSync(target) };
    } catch {
      return { kind: "link", target: "" };
    }
  }
  if (info.isDirectory) return { kind: "dir", mode: info.mode };
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(target);
  } catch {
    return { kind: "file", mode: info.mode, digest: `unreadable:${info.size}`, bytes: null };
  }
  const keep = bytes.length <= KEEP_BYTES && budget.bytes >= bytes.length;
  if (!keep) return { kind: "file", mode: info.mode, digest: sha256Hex(bytes), bytes: null };
  budget.bytes -= bytes.length;
  // Kept whole, it is compared byte for byte: no digest to take (a JS SHA-256
  // was a quarter of the guard's time, for git's sample hooks).
  return { kind: "file", mode: info.mode, digest: null, bytes };
}

/** A `.sample` file directly in a protected hooks folder (git's, or `core.hooksPath`'s). */
function isSampleHook(target: string, protectedPaths: ReadonlySet<string>): boolean {
  return target.endsWith(".sample") && protectedPaths.has(path.dirname(target));
}

/** The digest of a file state: taken now from its bytes when it was not at the survey. */
function digestOf(state: { digest: string | null; bytes: Uint8Array | null }): string {
  return state.digest ?? (state.digest = sha256Hex(state.bytes!));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

function sameState(a: EntryState, b: EntryState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "link" && b.kind === "link") return a.target === b.target;
  if (a.kind === "file" && b.kind === "file") {
    if (a.mode !== b.mode) return false;
    if (a.bytes && b.bytes) return sameBytes(a.bytes, b.bytes);
    return digestOf(a) === digestOf(b);
  }
  return true;
}

function removeQuietly(target: string, recursive = false): void {
  try {
    Deno.removeSync(target, { recursive });
  } catch {
    // Gone already, or a folder that still holds other work.
  }
}

export class CommandGuard {
  readonly #roots: string[];
  readonly #patterns: string[];
  readonly #anchors: NameFilter;
  /** `sandbox.protect` and `--protect` patterns beyond the built-in list, named in refusals. */
  readonly #ownPatterns: string[];
  readonly #options: CommandGuardOptions;

  constructor(options: CommandGuardOptions) {
    this.#options = options;
    this.#roots = options.roots.map((root) => realpathLenient(path.resolve(root)));
    this.#patterns = codePathPatterns(options.protect);
    this.#ownPatterns = this.#patterns.filter((pattern) => !CODE_PATHS.includes(pattern));
    this.#anchors = codePathAnchors(this.#patterns);
  }

  /**
   * Records the protected state; call the returned function once the
   * command has ended. It reverts what changed and returns what it did for
   * the model, or null when nothing protected changed.
   */
  before(): () => string | null {
    const protection = rememberGitProtection(this.#roots, this.#anchors);
    createMissingHooksFolders(protection);
    const start = this.#survey(protection);
    const journal = this.#options.journal;
    let kept: JournalFile | null = null;
    if (journal) {
      kept = JournalFile.write(journal, this.#record(start));
      // Started with the first guarded command, not with the session (a session
      // that runs none pays nothing), and after the command has started: a
      // spawn costs milliseconds of this thread. Until it runs, the journal
      // is replayed by the next start instead.
      setTimeout(() => watchForDeath(journal, installedBashPaths()[0]), 0);
    }
    return () => {
      const report = this.#check(start);
      kept?.done();
      return report;
    };
  }

  /**
   * The check of a command run by a skiff that died before its own check
   * (sandbox/guard/journal.ts): reverts against the journal's survey.
   */
  static replay(record: JournalRecord): string | null {
    const guard = new CommandGuard({ roots: record.roots, protect: record.protect });
    const entries = new Map<string, EntryState>(
      record.entries.map(([target, entry]) => [
        target,
        entry.kind === "file"
          ? { ...entry, bytes: entry.bytes === null ? null : fromBase64(entry.bytes) }
          : entry,
      ]),
    );
    return guard.#check({ protection: record.protection as GitProtection, entries });
  }

  /** Compares with `start`, reverts, and says what it did (null: nothing changed). */
  #check(start: Survey): string | null {
    // Remembered too, so the next check of a file tool sees what the command made.
    const end = this.#survey(rememberGitProtection(this.#roots, this.#anchors));
    const reverted = [...this.#revert(start, end), ...this.#cleanNewRepositories(start, end)];
    return reverted.length ? this.#describe(reverted) : null;
  }

  #record(start: Survey): JournalRecord {
    const entries = [...start.entries].map(([target, state]): [string, JournalEntry] => [
      target,
      state.kind === "file"
        ? { ...state, bytes: state.bytes === null ? null : toBase64(state.bytes) }
        : state,
    ]);
    return {
      roots: this.#roots,
      protect: this.#options.protect,
      protection: start.protection,
      entries,
    };
  }

  /** The protected entries now: code paths found by name, git's code entries, `.git` files. */
  #survey(protection: GitProtection): Survey {
    const targets = new Set<string>();
    const listings: Listings = new Map();
    for (const anchor of protection.named) {
      const name = path.basename(anchor);
      for (const pattern of this.#patterns) {
        if (!anchorMatches(pattern, name)) continue;
        for (const found of expandCodePath(anchor, pattern, undefined, listings)) {
          targets.add(found);
        }
      }
    }
    const protectedPaths = new Set(protection.paths);
    for (const target of [...protection.paths, ...protection.pointers]) {
      for (
        const found of expandCodePath(target, `${path.basename(target)}/**`, undefined, listings)
      ) {
        // git's `.sample` hooks never run (git runs a hook by its exact name): left out, as in
        // a new repository (#cleanNewRepositories). A fresh repository has 14; reading each
        // before and after every command was a third of the guard's time.
        if (isSampleHook(found, protectedPaths)) continue;
        targets.add(found);
      }
    }
    const budget = { bytes: 32 * KEEP_BYTES };
    const entries = new Map<string, EntryState>();
    for (const target of targets) {
      const state = stateOf(target, budget);
      if (state) entries.set(target, state);
    }
    return { protection, entries };
  }

  /** Puts back every protected entry of the start that changed, except inside new repositories. */
  #revert(start: Survey, end: Survey): RevertedPath[] {
    const known = new Set(start.protection.gitFolders);
    const fresh = end.protection.gitFolders.filter((folder) => !known.has(folder));
    const knownPointers = new Set(start.protection.pointers);
    // New repositories and `.git` files are judged by #cleanNewRepositories.
    const judgedElsewhere = (target: string) =>
      fresh.some((folder) => isWithin(folder, target)) ||
      (end.protection.pointers.includes(target) && !knownPointers.has(target));
    const reverted: RevertedPath[] = [];
    // Created entries, deepest first, so a new folder is empty when its turn comes.
    const created = [...end.entries.keys()]
      .filter((target) => !start.entries.has(target) && !judgedElsewhere(target))
      .sort((a, b) => b.length - a.length);
    for (const target of created) {
      const isFolder = end.entries.get(target)?.kind === "dir";
      // A new folder goes only when empty; it is not reported, its files are.
      removeQuietly(target, !isFolder);
      if (!isFolder) reverted.push({ path: target, change: "created", restored: true });
    }
    // Changed or removed entries, shallowest first, so a folder exists before its files.
    const before = [...start.entries].sort(([a], [b]) => a.length - b.length);
    for (const [target, old] of before) {
      const now = end.entries.get(target);
      if (now && sameState(old, now)) continue;
      if (now && now.kind === "dir" && old.kind === "dir") continue;
      if (now) removeQuietly(target, true);
      reverted.push({
        path: target,
        change: now ? "changed" : "removed",
        restored: this.#restore(target, old),
      });
    }
    return reverted;
  }

  #restore(target: string, old: EntryState): boolean {
    try {
      Deno.mkdirSync(path.dirname(target), { recursive: true });
      if (old.kind === "dir") Deno.mkdirSync(target, { recursive: true });
      else if (old.kind === "link") Deno.symlinkSync(old.target, target);
      else {
        if (!old.bytes) return false;
        // A temp file renamed over the name: a link a background command
        // planted there since is replaced, never written through.
        writeFileAtomicSync(target, old.bytes, old.mode ?? 0o644);
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A repository the command created keeps its objects and history, but not
   * code git would run: hooks (git's `.sample` files aside), a config naming
   * programs, a commondir (except a linked worktree's, pointing home), and a
   * `.git` file pointing at a folder planted in the workspace.
   */
  #cleanNewRepositories(start: Survey, end: Survey): RevertedPath[] {
    const reverted: RevertedPath[] = [];
    const drop = (target: string, recursive = false) => {
      removeQuietly(target, recursive);
      reverted.push({ path: target, change: "created", restored: true });
    };
    const known = new Set(start.protection.gitFolders);
    for (const folder of end.protection.gitFolders.filter((folder) => !known.has(folder))) {
      try {
        for (const entry of Deno.readDirSync(path.join(folder, "hooks"))) {
          if (!entry.name.endsWith(".sample")) drop(path.join(folder, "hooks", entry.name), true);
        }
      } catch {
        // no hooks folder
      }
      for (const name of ["config", "config.worktree"]) {
        const file = path.join(folder, name);
        const text = (() => {
          try {
            return Deno.readTextFileSync(file);
          } catch {
            return "";
          }
        })();
        if (GIT_CODE_KEYS.test(text)) drop(file);
      }
      const commondir = path.join(folder, "commondir");
      try {
        const target = path.resolve(folder, Deno.readTextFileSync(commondir).trim());
        const linkedWorktreeHome = path.basename(path.dirname(folder)) === "worktrees" &&
          target === path.dirname(path.dirname(folder));
        if (!linkedWorktreeHome) drop(commondir);
      } catch {
        // none
      }
    }
    const knownPointers = new Set(start.protection.pointers);
    const gitDirs = end.protection.gitDirs;
    for (const pointer of end.protection.pointers.filter((file) => !knownPointers.has(file))) {
      let target: string | null = null;
      try {
        const match = Deno.readTextFileSync(pointer).match(/^gitdir:\s*(.+?)\s*$/m);
        target = match ? path.resolve(path.dirname(pointer), match[1]) : null;
      } catch {
        // unreadable: judged below as pointing nowhere safe
      }
      const home = target !== null && gitDirs.some((dir) => isWithin(dir, target!));
      const inRoots = target !== null && this.#roots.some((root) => isWithin(root, target!));
      if (!home && (inRoots || target === null)) drop(pointer);
    }
    return reverted;
  }

  #describe(reverted: RevertedPath[]): string {
    const shown = (target: string) => {
      const root = this.#roots.find((candidate) => isWithin(candidate, target));
      return root ? path.relative(root, target) || "." : target;
    };
    const lines = reverted.map(({ path: target, change, restored }) => {
      const undone = change === "created" ? "removed" : restored ? "restored" : "NOT restored";
      return `- ${shown(target)}: ${change}, ${undone}`;
    });
    // A path only the run's own patterns cover (`--protect 'tests/**'`) is not code run later:
    // say which protection refused it, so the model is not told a test is a git hook.
    const ownOnly = (target: string) => {
      const relative = shown(target);
      return relative.split("/").every((part) => part !== ".git") &&
        matchingCodePath(relative, CODE_PATHS) === null &&
        matchingCodePath(relative, this.#ownPatterns) !== null;
    };
    const own = reverted.filter((entry) => ownOnly(entry.path)).length;
    const codeLater =
      "files that run code later outside the sandbox (git hooks and config, editor tasks, .envrc, agent settings and commands, CI workflows, package manager and mise config, skiff's config)";
    const protectedHere = `paths protected by sandbox.protect or --protect (${
      this.#ownPatterns.join(", ")
    })`;
    const what = own === reverted.length
      ? protectedHere
      : own
      ? `${codeLater}, nor ${protectedHere}`
      : codeLater;
    return [
      `Permission denied: commands may not create or change ${what}. skiff reverted:`,
      ...lines,
    ].join("\n");
  }
}
