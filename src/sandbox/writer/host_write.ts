/**
 * The one writer of the files skiff itself writes outside the sandbox: the
 * final answer and the summary (`-o`, `--summary`), `batch --report`,
 * `.skiff/done.json`, the "always here" rule, the trusted-projects list.
 * Inside a folder a repository or the agent may have filled (`within`: the
 * folder the user pointed at), it follows no symbolic link out: the file's
 * folder must resolve inside `within`, else the write is refused with a
 * message saying which link and what to do; and whatever stands at the
 * file's own name (a link, a FIFO) is replaced by a regular file, never
 * written through (src/lib/atomic_write.ts: a temp file created new
 * beside it, renamed over the name). docs/security.md, "Files skiff writes
 * itself".
 */
import * as path from "../../lib/path.ts";
import { SkiffError } from "../../contracts/errors.ts";
import { writeFileAtomicSync } from "../../lib/atomic_write.ts";
import { isWithin, lexicallyWithin, realpathLenient } from "../paths.ts";

export interface HostWriteOptions {
  /**
   * The folder the user pointed at, whose contents a repository or the
   * agent may have made (the current folder for a relative `-o`, the
   * workspace for `.skiff/done.json`). Left out for the user's own paths
   * (the global config, a path outside every such folder): a link there is
   * the user's (`-o /dev/stdout`, a dotfiles link) and is written through.
   */
  within?: string;
  /** Permission bits of a new file, less the umask; a replaced regular file keeps its own. @default 0o644 */
  newMode?: number;
}

/** What was written, and the link that stood at the name, if one was replaced. */
export interface HostWritten {
  /** The path written: the real folder's, inside `within`. */
  file: string;
  /** The text of the link that stood at the name and is now a regular file; null if none. */
  replacedLink: string | null;
}

/** A write refused because the file's folder leads out of the folder the user pointed at. */
export class HostWriteRefused extends SkiffError {
  constructor(
    /** The file as the caller named it. */
    readonly file: string,
    /** The symbolic link on the way, as the user would name it; null when the name alone leads out. */
    readonly link: string | null,
    /** Where the file's folder really is. */
    readonly leadsTo: string,
    readonly within: string,
  ) {
    super(
      "usage",
      link === null
        ? `${file} was not written: its folder ${leadsTo} is outside ${within}, the folder ` +
          "skiff may write it in."
        : `${file} was not written: ${link} is a symbolic link to ${leadsTo}, outside ` +
          `${within}. skiff writes its own files only inside the folder they were named in, ` +
          "never through a link that leads out of it.",
      link === null
        ? "Name a path inside that folder, then run again."
        : `Remove the link (rm ${shellWord(link)}), then run again.`,
    );
    this.name = "HostWriteRefused";
  }
}

/** `word` as one shell word, quoted only when it needs it. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The folder a path the user gave lies in, of `folders` (the current folder,
 * the workspace, its `--add-dir`s: where a repository or the agent can put a
 * link), the outermost holding it by its name; undefined when none does (the
 * path is the user's own, e.g. `/dev/stdout` or `~/reports/x.md`).
 */
export function namedWithin(file: string, folders: readonly string[]): string | undefined {
  const target = path.resolve(file);
  const holding = folders.map((folder) => path.resolve(folder))
    .filter((folder) => lexicallyWithin(folder, target))
    .sort((a, b) => a.length - b.length);
  return holding[0];
}

/**
 * Why `file` may not be written inside `within`: the refusal, or null when
 * its folder resolves inside. Checked again by the write itself; a front end
 * calls it first so a refused path is found before the model is paid for.
 */
export function hostWriteRefusal(file: string, within: string): HostWriteRefused | null {
  const checked = checkFolder(file, within);
  return checked instanceof HostWriteRefused ? checked : null;
}

/** The real folder of `file` when it lies inside `within`, else the refusal. */
function checkFolder(file: string, within: string): string | HostWriteRefused {
  const root = realpathLenient(path.resolve(within));
  const folder = realpathLenient(path.dirname(path.resolve(file)));
  if (isWithin(root, folder)) return folder;
  const link = linkOnTheWay(file, within);
  if (link === null) return new HostWriteRefused(file, null, folder, within);
  return new HostWriteRefused(file, link.shown, realpathLenient(link.absolute), within);
}

/**
 * The first folder of `file`, below `within`, that is a symbolic link, named
 * as the user named it (relative stays relative); null when none is (the
 * path lies outside `within` by its name alone).
 */
function linkOnTheWay(
  file: string,
  within: string,
): { shown: string; absolute: string } | null {
  const root = path.resolve(within);
  const folder = path.dirname(path.resolve(file));
  if (!lexicallyWithin(root, folder)) return null;
  const below = path.relative(root, folder).split(path.sep).filter(Boolean);
  let current = root;
  for (const name of below) {
    current = path.join(current, name);
    try {
      if (!Deno.lstatSync(current).isSymlink) continue;
    } catch {
      return null;
    }
    const shown = path.isAbsolute(file) ? current : path.relative(Deno.cwd(), current);
    return { shown: shown || current, absolute: current };
  }
  return null;
}

/**
 * Write `data` to `file` the way every file skiff writes itself is written
 * (see the module). Throws HostWriteRefused for a folder leading out of
 * `within`, and the file system's error otherwise. Needs read and write
 * permission on the file's folder.
 */
export async function writeHostFile(
  file: string,
  data: string | Uint8Array,
  options: HostWriteOptions = {},
): Promise<HostWritten> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const newMode = options.newMode ?? 0o644;
  if (options.within === undefined) return await writeOwnPath(path.resolve(file), bytes, newMode);
  const folder = checkFolder(file, options.within);
  if (folder instanceof HostWriteRefused) throw folder;
  // Into the folder as checked, not by the name again: a link on the way is not walked twice.
  const real = path.join(folder, path.basename(path.resolve(file)));
  const replacedLink = linkText(real);
  writeFileAtomicSync(real, bytes, undefined, newMode);
  return { file: real, replacedLink };
}

/** The user's own path: a regular file or nothing is replaced atomically; anything else written through. */
async function writeOwnPath(
  target: string,
  bytes: Uint8Array,
  newMode: number,
): Promise<HostWritten> {
  let info: Deno.FileInfo | null = null;
  try {
    info = Deno.lstatSync(target);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (info === null || info.isFile) {
    writeFileAtomicSync(target, bytes, undefined, newMode);
  } else {
    // A device (`/dev/stdout`), a FIFO, or the user's own link: replacing it would break it.
    // Not on this thread: opening a FIFO waits for a reader, and --max-time's backstop must run.
    await Deno.writeFile(target, bytes, { mode: newMode });
  }
  return { file: target, replacedLink: null };
}

function linkText(file: string): string | null {
  try {
    return Deno.lstatSync(file).isSymlink ? Deno.readLinkSync(file) : null;
  } catch {
    return null;
  }
}

/** The line a front end prints when a link at the name was replaced: the user should know. */
export function replacedLinkNotice(file: string, written: HostWritten): string | null {
  if (written.replacedLink === null) return null;
  return `skiff: ${file} was a symbolic link (to ${written.replacedLink}); it is now a regular ` +
    "file holding what skiff wrote, and the link's target is untouched. If the link was yours, " +
    "name the file it leads to instead.";
}
