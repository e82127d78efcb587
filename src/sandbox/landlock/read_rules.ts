/**
 * The read rules of a Landlock ruleset (sandbox/landlock/rules.ts): all of `/`
 * except the hidden paths. Built by the exec step (sandbox/landlock/exec.ts) at each
 * command's start, so this module imports nothing but landlock.ts: loading
 * `node:path` would load Node's compatibility layer, which costs the step
 * more than the rest of its work (docs/performance.md). Paths here are absolute and normalised
 * (real paths from the plan, joined with names read from the folders).
 */
import { FsAccess } from "./landlock.ts";

/** Rights to read and run what is there. */
export const READ_RIGHTS = FsAccess.readFile | FsAccess.readDir | FsAccess.execute;
const FILE_READ = FsAccess.readFile | FsAccess.execute;

/** An entry of a folder: its name and whether it is (or links to) a folder. */
export interface FolderEntry {
  name: string;
  folder: boolean;
}

function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

function dirname(target: string): string {
  const cut = target.lastIndexOf("/");
  return cut <= 0 ? "/" : target.slice(0, cut);
}

function basename(target: string): string {
  return target.slice(target.lastIndexOf("/") + 1);
}

const caseInsensitiveCache = new Map<string, boolean>();

/**
 * Whether the filesystem holding `dir` ignores case (as `isCaseInsensitive`
 * in paths.ts finds it: the same folder asked for with its name's case
 * flipped). Cached per folder.
 */
function isCaseInsensitive(dir: string): boolean {
  const cached = caseInsensitiveCache.get(dir);
  if (cached !== undefined) return cached;
  let answer = false;
  let probe = dir;
  while (probe !== "/" && basename(probe).toLowerCase() === basename(probe).toUpperCase()) {
    probe = dirname(probe);
  }
  const name = basename(probe);
  if (name) {
    const flipped = [...name].map((c) => c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())
      .join("");
    try {
      const a = Deno.statSync(probe);
      const b = Deno.statSync(join(dirname(probe), flipped));
      answer = a.ino !== null && a.ino === b.ino && a.dev === b.dev;
    } catch {
      answer = false;
    }
  }
  caseInsensitiveCache.set(dir, answer);
  return answer;
}

/** True when `candidate` is `root` or lies beneath it (`isWithin` of paths.ts, for normalised absolute paths). */
export function isWithinAbsolute(root: string, candidate: string): boolean {
  const within = (a: string, b: string) => b === a || b.startsWith(a.endsWith("/") ? a : `${a}/`);
  if (within(root, candidate)) return true;
  // Only a name that differs in case alone needs the filesystem asked (two
  // stats, which for every entry of every listed folder cost the step ms).
  if (!within(root.toLowerCase(), candidate.toLowerCase())) return false;
  return isCaseInsensitive(root);
}

function listFolder(dir: string): FolderEntry[] {
  const entries: FolderEntry[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    let folder = entry.isDirectory;
    if (entry.isSymlink) {
      try {
        folder = Deno.statSync(join(dir, entry.name)).isDirectory;
      } catch {
        continue; // a dangling link: nothing to grant
      }
    }
    entries.push({ name: entry.name, folder });
  }
  return entries;
}

/**
 * Read rules for all of `/` except `hidden`: a folder holding a hidden path
 * gets only the right to list it (so the hidden names can be listed, not
 * read), and each of its other entries is granted whole.
 */
export function readRules(
  hidden: readonly string[],
  list: (dir: string) => FolderEntry[] = listFolder,
): [string, bigint][] {
  const rules: [string, bigint][] = [];
  const grant = (target: string, folder: boolean) => {
    if (hidden.includes(target)) return;
    if (
      !folder || !hidden.some((inside) => inside !== target && isWithinAbsolute(target, inside))
    ) {
      rules.push([target, folder ? READ_RIGHTS : FILE_READ]);
      return;
    }
    rules.push([target, FsAccess.readDir]);
    let entries: FolderEntry[] = [];
    try {
      entries = list(target);
    } catch {
      return; // unreadable to skiff too: nothing to grant
    }
    for (const entry of entries) grant(join(target, entry.name), entry.folder);
  };
  grant("/", true);
  return rules;
}
