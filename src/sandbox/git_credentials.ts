/**
 * Credentials git keeps in a repository's own config files: the token
 * `actions/checkout` leaves as `http.<url>.extraheader`, a password in a
 * remote's URL (`https://x-access-token:TOKEN@github.com/…`), `credential.*`
 * entries (an inline helper can print a password; `store --file <path>`
 * names a file of passwords), and the same in a file the config includes
 * (`include.path`, `includeIf.*.path`: newer checkouts put the token there). Such a file is hidden like the user's other
 * credential files (hidden.ts): the file tools refuse it, and bubblewrap
 * shows commands a copy with those entries taken out, so `git status` and
 * `git log` still work inside the sandbox.
 *
 * Read here, never with `git config`: git run on a hostile repository can
 * run code. Needs `--allow-read` for the repository, and `--allow-write` for
 * the temp folder where `gitConfigView` keeps its copies.
 */
import * as path from "../lib/path.ts";
import { REDACTED, redactSecrets } from "../contracts/redact.ts";
import { sha256Hex } from "../lib/sha256.ts";
import { dirEntriesOrNone } from "./dir_entries.ts";
import { writeFileAtomicSync } from "../lib/atomic_write.ts";

/** A git config file is read only up to this size (git's own are a few KiB). */
const MAX_CONFIG_BYTES = 1 << 20;

/** Includes followed at most this deep, as git itself stops. */
const MAX_INCLUDE_DEPTH = 10;

function readSmallText(file: string): string | null {
  try {
    const info = Deno.statSync(file);
    if (!info.isFile || info.size > MAX_CONFIG_BYTES) return null;
    return Deno.readTextFileSync(file);
  } catch {
    return null;
  }
}

interface ConfigLine {
  /** The section the line belongs to, lowercased without its subsection (`http`). */
  section: string;
  /** The key of a `key = value` line, lowercased; "" for a header, comment or blank. */
  key: string;
  /** The value as written (unquoted enough to name a file). */
  value: string;
}

/** Each line of a git config file with its section and key. */
function parseLines(text: string): { raw: string; parsed: ConfigLine }[] {
  let section = "";
  return text.split("\n").map((raw) => {
    let line = raw.trim();
    const header = line.match(/^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/);
    if (header) {
      section = header[1].toLowerCase().split(".")[0];
      line = header[2].trim();
    }
    const pair = line.match(/^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/);
    if (!pair || line.startsWith("#") || line.startsWith(";")) {
      return { raw, parsed: { section, key: "", value: "" } };
    }
    const value = (pair[2] ?? "").trim().replace(/^"(.*)"$/, "$1");
    return { raw, parsed: { section, key: pair[1].toLowerCase(), value } };
  });
}

/** True when this line of a config file carries a credential in its key's value. */
function isCredentialEntry(line: ConfigLine): boolean {
  return (line.section === "http" && line.key === "extraheader") ||
    (line.section === "credential" && line.key !== "");
}

/** True when `text`, a git config file, holds a credential. */
export function holdsGitCredential(text: string): boolean {
  return parseLines(text).some(({ raw, parsed }) =>
    isCredentialEntry(parsed) || redactSecrets(raw) !== raw
  );
}

/**
 * `text` with every credential taken out: extraheader and `credential.*`
 * lines become comments, a URL's password and token-shaped values `***`.
 * Everything else stays, so git reads the repository as before.
 */
export function redactGitConfig(text: string): string {
  return parseLines(text).map(({ raw, parsed }) => {
    if (isCredentialEntry(parsed)) {
      const indent = raw.match(/^\s*/)?.[0] ?? "";
      return `${indent}# ${parsed.key} ${REDACTED} (hidden from the agent by skiff)`;
    }
    return redactSecrets(raw);
  }).join("\n");
}

/** The files a config file includes, absolute; `~/` is `home`. */
function includedFiles(file: string, text: string, home: string): string[] {
  return parseLines(text)
    .filter(({ parsed }) =>
      (parsed.section === "include" || parsed.section === "includeif") && parsed.key === "path" &&
      parsed.value !== ""
    )
    .map(({ parsed }) =>
      parsed.value.startsWith("~/")
        ? path.join(home, parsed.value.slice(2))
        : path.resolve(path.dirname(file), parsed.value)
    );
}

/**
 * The files a `credential.helper = store --file <path>` of a config file
 * keeps passwords in (git's default store, `~/.git-credentials`, is hidden
 * with the user's other keys).
 */
function credentialStores(file: string, text: string, home: string): string[] {
  return parseLines(text)
    .filter(({ parsed }) => parsed.section === "credential" && parsed.key === "helper")
    .flatMap(({ parsed }) => {
      const named = /^store\b.*?--file[= ]\s*("[^"]+"|\S+)/.exec(parsed.value)?.[1];
      if (!named) return [];
      const value = named.replace(/^"|"$/g, "");
      return [
        value.startsWith("~/")
          ? path.join(home, value.slice(2))
          : path.resolve(path.dirname(file), value),
      ];
    });
}

/** The `.git` folder of the repository holding `start` (a `.git` file followed), or null. */
function enclosingGitFolder(start: string): string | null {
  for (let dir = start;;) {
    const dotGit = path.join(dir, ".git");
    try {
      const info = Deno.lstatSync(dotGit);
      if (info.isDirectory) return dotGit;
      if (info.isFile) {
        const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readSmallText(dotGit) ?? "");
        return pointer ? path.resolve(dir, pointer[1]) : null;
      }
    } catch {
      // no `.git` here: look above
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The names in `folder`, or an empty set (a failed read costs as much as the listing). */
function namesIn(folder: string): Set<string> {
  return new Set(dirEntriesOrNone(folder).map((entry) => entry.name));
}

/**
 * The config files git reads for `gitFolder` and those beside it: its own,
 * its common folder's, each submodule's and linked worktree's. Only names a
 * listing shows are opened: most of these are missing, and each failed open
 * costs a thrown error.
 */
function configFiles(gitFolder: string): string[] {
  const files: string[] = [];
  const folders = [gitFolder];
  const own = namesIn(gitFolder);
  if (own.has("commondir")) {
    const common = readSmallText(path.join(gitFolder, "commondir"))?.trim();
    if (common) folders.push(path.resolve(gitFolder, common));
  }
  const visitModules = (folder: string, depth: number) => {
    if (depth > 8) return;
    for (const entry of dirEntriesOrNone(folder)) {
      if (!entry.isDirectory) continue;
      const full = path.join(folder, entry.name);
      const names = namesIn(full);
      if (names.has("HEAD")) {
        addFolder(full, names);
        if (names.has("modules")) visitModules(path.join(full, "modules"), depth + 1);
      } else visitModules(full, depth + 1);
    }
  };
  const addFolder = (folder: string, names: Set<string>) => {
    for (const name of ["config", "config.worktree"]) {
      if (names.has(name)) files.push(path.join(folder, name));
    }
  };
  for (const [index, base] of folders.entries()) {
    const names = index === 0 ? own : namesIn(base);
    addFolder(base, names);
    if (names.has("modules")) visitModules(path.join(base, "modules"), 0);
    if (!names.has("worktrees")) continue;
    for (const entry of dirEntriesOrNone(path.join(base, "worktrees"))) {
      if (!entry.isDirectory) continue;
      const folder = path.join(base, "worktrees", entry.name);
      addFolder(folder, namesIn(folder));
    }
  }
  return [...new Set(files)];
}

/**
 * The config files of the repository holding `workspace` (its submodules'
 * and linked worktrees' too, and every file they include) that hold a
 * credential. A repository nested below the workspace is not searched here
 * (the file tools still check each config file they are asked for:
 * `isCredentialBearingGitFile`).
 */
export function gitCredentialFiles(workspace: string, home: string): string[] {
  const gitFolder = enclosingGitFolder(workspace);
  if (!gitFolder) return [];
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, depth: number) => {
    if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(file);
    const text = readSmallText(file);
    if (text === null) return;
    if (holdsGitCredential(text)) found.push(file);
    for (const store of credentialStores(file, text, home)) {
      if (!seen.has(store) && readSmallText(store) !== null) found.push(store);
      seen.add(store);
    }
    for (const included of includedFiles(file, text, home)) visit(included, depth + 1);
  };
  for (const file of configFiles(gitFolder)) visit(file, 0);
  return found;
}

/** Whether `real` is named like a file git reads credentials from: a config inside a `.git`, or `.git-credentials`. */
export function looksLikeGitCredentialFile(real: string): boolean {
  const name = path.basename(real);
  if (name === ".git-credentials") return true;
  return (name === "config" || name === "config.worktree") &&
    real.split(path.sep).includes(".git");
}

/** True for a file the file tools must refuse: a git config holding a credential, or `.git-credentials`. */
export function isCredentialBearingGitFile(real: string): boolean {
  if (!looksLikeGitCredentialFile(real)) return false;
  if (path.basename(real) === ".git-credentials") return true;
  const text = readSmallText(real);
  return text !== null && holdsGitCredential(text);
}

/**
 * A file holding `redactGitConfig` of `file`, for bubblewrap to show in its
 * place, or null when none can be written safely (the caller then hides the
 * file whole). Kept in `folder` — by default one of the user's own under the
 * temp folder; the engine's Worker passes one in skiff's data folder, the
 * only place outside the workspace it may write — named by its content, so a
 * session's sandboxes keep the same arguments.
 */
export function gitConfigView(file: string, folder = defaultViewsFolder()): string | null {
  const text = readSmallText(file);
  if (text === null) return null;
  const view = redactGitConfig(text);
  try {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(folder);
    } catch {
      Deno.mkdirSync(folder, { mode: 0o700, recursive: true });
      info = Deno.lstatSync(folder);
    }
    // Another user's folder, or a link planted there, is not ours to write in.
    if (!info.isDirectory || info.uid !== Deno.uid() || ((info.mode ?? 0) & 0o077) !== 0) {
      return null;
    }
    const target = path.join(folder, `${sha256Hex(view).slice(0, 32)}.gitconfig`);
    try {
      if (Deno.readTextFileSync(target) === view) return target;
    } catch {
      // not written yet
    }
    writeFileAtomicSync(target, new TextEncoder().encode(view), 0o600);
    return target;
  } catch {
    return null;
  }
}

function defaultViewsFolder(): string {
  let uid: number | null = null;
  try {
    uid = Deno.uid();
  } catch {
    // not allowed here: the name still has to be the user's own
  }
  return path.join(tempFolder(), `skiff-git-views-${uid ?? "user"}`);
}

function tempFolder(): string {
  try {
    return Deno.env.get("TMPDIR") || "/tmp";
  } catch {
    return "/tmp";
  }
}

/** `shownGitConfig`'s answers, by file and what its stat says of its content. */
const shownCache = new Map<string, { key: string; source: string }>();

/**
 * What bubblewrap binds at a git config file it re-binds read-only before
 * each command: the file itself, or — when it holds a credential — its view
 * (`gitConfigView`), else an empty file. A repository nested in the
 * workspace, or a credential added since the session started, is covered
 * here; the answer is kept while the file's inode, size and times stay.
 */
export function shownGitConfig(file: string, info: Deno.FileInfo, viewsFolder?: string): string {
  if (!info.isFile || !looksLikeGitCredentialFile(file)) return file;
  const key = `${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
  const known = shownCache.get(file);
  if (known?.key === key) return known.source;
  const text = readSmallText(file);
  const source = text === null || !holdsGitCredential(text)
    ? file
    : gitConfigView(file, viewsFolder) ?? "/dev/null";
  shownCache.set(file, { key, source });
  return source;
}
