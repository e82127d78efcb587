/**
 * Every git repository under the workspace and its extra folders, at any
 * depth, and the files in each that make git run code or look elsewhere:
 * `hooks/`, `config`, `config.worktree`, `commondir`, the same inside each
 * submodule's repository (`.git/modules/…`) and linked worktree
 * (`.git/worktrees/…`), and the folder `core.hooksPath` names. Commands may
 * not change these (the OS sandbox re-binds them read-only, the command
 * guard reverts what it could not bind); `git add` and `git commit` still
 * write the index, objects, refs and logs beside them.
 *
 * The config is read here, not with `git config`: git run on a hostile
 * repository can run code. Needs `--allow-read` for the folders searched.
 */
import { dirEntriesOrNone, type Listings, presenceOf } from "./dir_entries.ts";
import * as path from "../lib/path.ts";

/** Files and folders of one git folder that redirect git or hold code it runs. */
export const GIT_CODE_ENTRIES: readonly string[] = [
  "hooks",
  "config",
  "config.worktree",
  "commondir",
];

/** The hooks git knows: protected one by one where hooksPath names a folder holding other work. */
export const HOOK_NAMES: readonly string[] = [
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-receive",
  "update",
  "proc-receive",
  "post-receive",
  "post-update",
  "reference-transaction",
  "push-to-checkout",
  "pre-auto-gc",
  "post-rewrite",
  "sendemail-validate",
  "fsmonitor-watchman",
  "post-index-change",
];

export interface GitRepository {
  /** The folder holding `.git`: the working tree's root. */
  root: string;
  /** The `.git` entry. */
  dotGit: string;
  /** A `.git` folder is a repository; a `.git` file points at one elsewhere. */
  kind: "dir" | "file";
}

export interface RepositorySearch {
  repositories: GitRepository[];
  /** Entries whose name was asked for (`names`), outside dependency folders. */
  named: string[];
  /** False when the folder limit stopped the search early. */
  complete: boolean;
  /** Folders read. */
  folders: number;
}

/** Folders read at most per search, so a huge tree cannot stall every command. @default 200000 */
export const MAX_SEARCHED_FOLDERS = 200_000;

/**
 * Folders that hold installed dependencies: a package's own `.github` or
 * `.vscode` there is not the user's, and installing rewrites them.
 */
const DEPENDENCY_FOLDERS = new Set(["node_modules", "site-packages"]);

function lstatOrNull(target: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(target);
  } catch {
    return null;
  }
}

/**
 * Every `.git` below `roots` (the roots included), never following a
 * symlink and never descending into a `.git` (its insides are listed by
 * `gitFolders`); and every entry named in `names`, except inside dependency
 * folders (node_modules).
 */
export function findRepositories(
  roots: string[],
  names: Pick<ReadonlySet<string>, "has"> = new Set(),
  maxFolders = MAX_SEARCHED_FOLDERS,
): RepositorySearch {
  const repositories: GitRepository[] = [];
  const named: string[] = [];
  const stack: [string, boolean][] = [...new Set(roots)].map((root) => [root, false]);
  let folders = 0;
  // Plain string joins: this runs twice per command over every folder.
  while (stack.length) {
    const [folder, inDependencies] = stack.pop()!;
    if (++folders > maxFolders) return { repositories, named, complete: false, folders };
    let entries: Iterable<Deno.DirEntry>;
    try {
      entries = Deno.readDirSync(folder);
    } catch {
      continue;
    }
    const prefix = folder.endsWith("/") ? folder : `${folder}/`;
    for (const entry of entries) {
      const full = prefix + entry.name;
      if (entry.name === ".git") {
        if (entry.isDirectory) repositories.push({ root: folder, dotGit: full, kind: "dir" });
        else if (entry.isFile) repositories.push({ root: folder, dotGit: full, kind: "file" });
        continue;
      }
      if (!inDependencies && names.has(entry.name)) named.push(full);
      if (entry.isDirectory) {
        stack.push([full, inDependencies || DEPENDENCY_FOLDERS.has(entry.name)]);
      }
    }
  }
  return { repositories, named, complete: true, folders };
}

/**
 * The git folders inside one `.git` folder: itself, each submodule's
 * repository under `modules/` (names may hold slashes; a folder with a
 * `HEAD` is a repository, and may have `modules/` of its own), and each
 * linked worktree's folder under `worktrees/`.
 */
export function gitFolders(dotGit: string, listings: Listings = new Map()): string[] {
  const found = [dotGit];
  // `modules/` and `worktrees/` are mostly missing: a listing of the folder
  // above says so without a failed read each (dir_entries.ts).
  const present = (target: string) => presenceOf(target, listings) !== "absent";
  const visitModules = (folder: string, depth: number) => {
    if (depth > 8 || !present(folder)) return;
    for (const entry of dirEntriesOrNone(folder)) {
      if (!entry.isDirectory) continue;
      const full = path.join(folder, entry.name);
      const head = path.join(full, "HEAD");
      if (present(head) && lstatOrNull(head)?.isFile) {
        found.push(full);
        visitModules(path.join(full, "modules"), depth + 1);
      } else visitModules(full, depth + 1);
    }
  };
  visitModules(path.join(dotGit, "modules"), 0);
  const worktrees = path.join(dotGit, "worktrees");
  for (const entry of present(worktrees) ? dirEntriesOrNone(worktrees) : []) {
    if (entry.isDirectory) found.push(path.join(dotGit, "worktrees", entry.name));
  }
  return found;
}

function unquote(raw: string): string {
  let value = raw.trim();
  // A comment after the value, outside quotes.
  let inQuotes = false;
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === "\\" && i + 1 < value.length) {
      const next = value[++i];
      out += next === "t" ? "\t" : next === "n" ? "\n" : next;
    } else if (char === '"') inQuotes = !inQuotes;
    else if ((char === "#" || char === ";") && !inQuotes) break;
    else out += char;
  }
  value = out.trim();
  return value;
}

/**
 * The last value of `section.name` in a git config file, following
 * `include.path` and `includeIf.*.path` (every condition taken as true, so
 * nothing is missed) up to a few levels deep.
 */
export function readGitConfigValue(
  file: string,
  section: string,
  name: string,
  depth = 0,
): string | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch {
    return null;
  }
  let current = "";
  let value: string | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim();
    const header = line.match(/^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\](.*)$/);
    if (header) {
      current = header[1].toLowerCase();
      line = header[2].trim();
    }
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const pair = line.match(/^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/);
    if (!pair) continue;
    const key = pair[1].toLowerCase();
    const raw = unquote(pair[2] ?? "true");
    if (current === section && key === name) value = raw;
    else if ((current === "include" || current === "includeif") && key === "path" && depth < 5) {
      const included = path.resolve(path.dirname(file), raw);
      const inner = readGitConfigValue(included, section, name, depth + 1);
      if (inner !== null) value = inner;
    }
  }
  return value;
}

/**
 * The folder `core.hooksPath` names for a git folder, absolute, or null when
 * unset. A relative value is relative to the working tree (`core.worktree`
 * when set, else `worktreeRoot`); `~/` is the home folder.
 */
export function hooksPathOf(
  gitFolder: string,
  worktreeRoot: string,
  listings: Listings = new Map(),
): string | null {
  // `config.worktree` is mostly missing: see dir_entries.ts.
  const worktreeConfig = path.join(gitFolder, "config.worktree");
  const value =
    (presenceOf(worktreeConfig, listings) === "absent"
      ? null
      : readGitConfigValue(worktreeConfig, "core", "hookspath")) ??
      readGitConfigValue(path.join(gitFolder, "config"), "core", "hookspath");
  if (!value) return null;
  if (value.startsWith("~/")) {
    try {
      return path.join(Deno.env.get("HOME") ?? "/", value.slice(2));
    } catch {
      return null; // HOME unreadable here: outside the workspace anyway
    }
  }
  const worktree = readGitConfigValue(path.join(gitFolder, "config"), "core", "worktree");
  const base = worktree ? path.resolve(gitFolder, worktree) : worktreeRoot;
  return path.resolve(base, value);
}
