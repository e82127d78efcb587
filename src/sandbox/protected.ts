/**
 * Paths inside the workspace that stay read-only in `workspace-write` mode:
 * git hooks and git config (writing them runs code or changes where pushes
 * go the next time the user runs git), skiff's own config, the project
 * agent folders skiff loads (an agent file's `permission` frontmatter is a
 * rule layer: writing either would let the agent grant itself permissions),
 * and `.mcp.json` (its servers start outside the OS sandbox).
 */
import * as path from "../lib/path.ts";
import {
  findRepositories,
  GIT_CODE_ENTRIES,
  gitFolders,
  type GitRepository,
  HOOK_NAMES,
  hooksPathOf,
} from "./git_dirs.ts";
import { isWithin, realpathLenient } from "./paths.ts";
import { type Listings, presenceOf } from "./dir_entries.ts";

/** Workspace-relative paths that are protected, folder or file. */
export const PROTECTED_RELATIVE: readonly string[] = [
  ".git/hooks",
  ".git/config",
  "skiff.json",
  ".skiff",
  ".claude/agents",
  ".opencode/agent",
  ".opencode/agents",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".mcp.json",
];

/** What keeps git from running planted code, for every repository under some roots. */
export interface GitProtection {
  repositories: GitRepository[];
  /** `.git` folders: each is bound onto itself, so it cannot be moved aside and rebuilt. */
  gitDirs: string[];
  /** `.git` files (worktree, submodule checkout): rewritten, they point git elsewhere. */
  pointers: string[];
  /** Every git folder (repositories, submodules' and worktrees' folders). */
  gitFolders: string[];
  /**
   * Paths commands may not change, existing or not: each git folder's
   * hooks, config, config.worktree and commondir, and the folders (or, where
   * it is a working tree, the hook files) `core.hooksPath` names inside the roots.
   */
  paths: string[];
  /** Entries with a name asked for (`names` of `gitProtection`), for the command guard. */
  named: string[];
  /** False when the search stopped at its folder limit. */
  complete: boolean;
}

function pointerTarget(pointer: string): string | null {
  try {
    const match = Deno.readTextFileSync(pointer).match(/^gitdir:\s*(.+?)\s*$/m);
    return match ? path.resolve(path.dirname(pointer), match[1]) : null;
  } catch {
    return null;
  }
}

/** Finds every repository under `roots` (realpath'd) and what of each must stay as it is. */
export function gitProtection(
  roots: string[],
  names: Pick<ReadonlySet<string>, "has"> = new Set(),
): GitProtection {
  const realRoots = roots.map((root) => realpathLenient(path.resolve(root)));
  const search = findRepositories(realRoots, names);
  const inRoots = (target: string) => realRoots.some((root) => isWithin(root, target));
  const folders = new Map<string, string>();
  // Shared by the lookups below, which mostly ask about missing entries (dir_entries.ts).
  const listings: Listings = new Map();
  const gitDirs: string[] = [];
  const pointers: string[] = [];
  for (const repository of search.repositories) {
    if (repository.kind === "dir") {
      gitDirs.push(repository.dotGit);
      for (const folder of gitFolders(repository.dotGit, listings)) {
        folders.set(folder, repository.root);
      }
    } else {
      pointers.push(repository.dotGit);
      // A repository kept elsewhere in the roots (`--separate-git-dir`).
      const target = pointerTarget(repository.dotGit);
      if (target && inRoots(target) && !folders.has(target)) folders.set(target, repository.root);
    }
  }
  const paths = new Set<string>();
  for (const [folder, worktree] of folders) {
    for (const entry of GIT_CODE_ENTRIES) paths.add(path.join(folder, entry));
    const hooks = hooksPathOf(folder, worktree, listings);
    if (!hooks || !inRoots(hooks)) continue;
    for (const target of hookTargets(hooks, [worktree, ...realRoots])) paths.add(target);
  }
  return {
    repositories: search.repositories,
    gitDirs: [...new Set(gitDirs)],
    pointers: [...new Set(pointers)],
    gitFolders: [...folders.keys()],
    paths: [...paths],
    named: search.named,
    complete: search.complete,
  };
}

let remembered: { key: string; at: number; protection: GitProtection } | null = null;

/** How long a search stays fresh for `recentGitProtection`. */
const FRESH_MS = 1_000;

/**
 * `gitProtection`, searched once per command: the command guard searches
 * just before a command starts (`rememberGitProtection`) and the sandbox
 * launcher, a moment later, reuses that search for the same roots.
 */
export function recentGitProtection(roots: string[], now = Date.now()): GitProtection {
  const key = JSON.stringify(roots);
  if (remembered && remembered.key === key && now - remembered.at < FRESH_MS) {
    return remembered.protection;
  }
  const protection = gitProtection(roots);
  remembered = { key, at: now, protection };
  return protection;
}

/** Searches afresh and keeps the result for the launcher that starts the command next. */
export function rememberGitProtection(
  roots: string[],
  names: Pick<ReadonlySet<string>, "has">,
  now = Date.now(),
): GitProtection {
  const protection = gitProtection(roots, names);
  remembered = { key: JSON.stringify(roots), at: now, protection };
  return protection;
}

/**
 * What to protect of a hooks folder: the folder, or — when it is (or holds)
 * a working tree or a root, as `core.hooksPath = .` makes it — only the hook
 * names in it, so the rest of the work stays writable.
 */
function hookTargets(hooks: string, trees: string[]): string[] {
  if (!trees.some((tree) => isWithin(hooks, tree))) return [hooks];
  return HOOK_NAMES.map((name) => path.join(hooks, name));
}

/**
 * Creates a missing `hooks` folder in each git folder, empty, so the
 * sandbox can re-bind it read-only: a folder that does not exist cannot be
 * bound, and a command could create it and fill it. git makes the same
 * folder on `git init`.
 */
export function createMissingHooksFolders(protection: GitProtection): void {
  const listings: Listings = new Map();
  for (const folder of protection.gitFolders) {
    // Most exist: a listing tells so without a failed mkdir each (dir_entries.ts).
    if (presenceOf(path.join(folder, "hooks"), listings) === "listed") continue;
    try {
      Deno.mkdirSync(path.join(folder, "hooks"));
    } catch {
      // Exists already, or the folder is not ours to change.
    }
  }
}

/**
 * Absolute protected paths (existing or not), for the sandboxes to re-bind:
 * the workspace's own list, and git's code entries of every repository
 * under the workspace and `addDirs`.
 */
export function protectedPaths(
  workspace: string,
  addDirs: string[] = [],
  git: GitProtection = gitProtection([workspace, ...addDirs]),
): string[] {
  const root = realpathLenient(path.resolve(workspace));
  return [
    ...new Set([
      ...PROTECTED_RELATIVE.map((relative) => path.join(root, relative)),
      ...git.pointers,
      ...git.paths,
    ]),
  ];
}

/**
 * True when writing `target` (absolute, or relative to the workspace) would
 * change a protected path. Symlinks are resolved first, so a link to
 * `.git/hooks` is protected too.
 */
export function isWriteProtected(workspace: string, target: string): boolean {
  const root = realpathLenient(path.resolve(workspace));
  const real = realpathLenient(path.resolve(root, target));
  const fixed = PROTECTED_RELATIVE.map((relative) => path.join(root, relative));
  return [...fixed, ...hooksFoldersAbove(root, real)].some((protectedPath) =>
    isWithin(protectedPath, real)
  );
}

/**
 * The folders `core.hooksPath` names for the repositories holding `real`
 * (each folder from `real` up to `root` that has a `.git`): a file tool
 * writing there would plant a hook. Cheaper than a search of the whole tree,
 * which commands get (`gitProtection`).
 */
function hooksFoldersAbove(root: string, real: string): string[] {
  const found: string[] = [];
  for (let folder = path.dirname(real); isWithin(root, folder); folder = path.dirname(folder)) {
    const dotGit = path.join(folder, ".git");
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.lstatSync(dotGit);
    } catch {
      // not a repository root
    }
    const gitFolder = info?.isDirectory ? dotGit : info?.isFile ? pointerTarget(dotGit) : null;
    const hooks = gitFolder ? hooksPathOf(gitFolder, folder) : null;
    if (hooks) found.push(...hookTargets(hooks, [folder, root]));
    if (folder === root) break;
  }
  return found;
}

/**
 * The stricter test the file tools get. A session started in a subfolder
 * loads that folder's `skiff.json`, `.skiff/`, agent folders and `.mcp.json`,
 * and a nested repository has its own `.git`; so these names are protected
 * at any depth below the workspace and each extra folder, and so is
 * everything inside any `.git` (`commondir`, submodule and worktree configs
 * redirect git as surely as `config` does). The OS sandbox can only re-bind
 * the root's existing ones (`protectedPaths`).
 */
export function isToolWriteProtected(
  workspace: string,
  target: string,
  extraDirs: string[] = [],
): boolean {
  if (isWriteProtected(workspace, target)) return true;
  const root = realpathLenient(path.resolve(workspace));
  const real = realpathLenient(path.resolve(root, target));
  for (const dir of [root, ...extraDirs.map((extra) => realpathLenient(path.resolve(extra)))]) {
    if (!isWithin(dir, real)) continue;
    const parts = path.relative(dir, real).split(path.sep);
    const last = parts.length - 1;
    const hit = parts.some((part, index) =>
      part === ".git" || part === ".skiff" ||
      (index === last && (part === "skiff.json" || part === ".mcp.json")) ||
      (part === ".claude" && parts[index + 1] === "agents") ||
      (part === ".opencode" && ["agent", "agents"].includes(parts[index + 1]))
    );
    if (hit) return true;
  }
  // Found by a search of the roots (at most once a second): a repository
  // kept outside any `.git` (`--separate-git-dir`), and a hooks folder a
  // nested repository names outside its own tree.
  const git = recentGitProtection([root, ...extraDirs]);
  return git.paths.some((protectedPath) => isWithin(protectedPath, real));
}
