/**
 * Places no command and no file tool may read: the user's keys and tokens
 * (SSH, cloud, package registries, other coding agents), skiff's own global
 * config (API keys) and skiff's data folder (every session's history). `/` is
 * readable inside the OS sandbox, so without this list a command could read
 * them and, with the network on, send them anywhere.
 *
 * Config `sandbox.hidden` maps a path to `true` (hide it too) or `false`
 * (show a default entry again). A project's own file may only add: a `false`
 * counts only when the user's global config says it as well.
 */
import * as path from "../lib/path.ts";
import { isPlainAbsolute, isWithin, lexicallyWithin, realpathLenient } from "./paths.ts";
import { type Listings, presenceOf } from "./dir_entries.ts";
import {
  gitConfigView,
  gitCredentialFiles,
  looksLikeGitCredentialFile,
} from "./git_credentials.ts";

/** Hidden by default, relative to the home folder. */
export const DEFAULT_HIDDEN_IN_HOME: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".config/git/credentials",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".config/gh",
  ".config/hub",
  ".terraform.d/credentials.tfrc.json",
  ".vault-token",
  ".pgpass",
  ".password-store",
  ".claude",
  ".claude.json",
  ".codex",
  ".gemini",
  ".local/share/opencode",
  ".config/opencode",
];

/** The config key a user changes to show a hidden path again; named in every refusal. */
export const HIDDEN_CONFIG_KEY = "sandbox.hidden";

export interface HiddenInput {
  home: string;
  /** skiff's global config folder (API keys). */
  configDir: string;
  /** skiff's data folder (the session database, spilled output). */
  dataDir: string;
  /** The merged `sandbox.hidden`, every layer. */
  merged?: Record<string, boolean>;
  /** `sandbox.hidden` of the user's global config alone: only its `false` entries count. */
  user?: Record<string, boolean>;
  /** Relative keys are anchored here. */
  workspace: string;
}

function absolute(key: string, home: string, workspace: string): string {
  const expanded = key === "~" ? home : key.startsWith("~/") ? path.join(home, key.slice(2)) : key;
  return path.resolve(workspace, expanded);
}

/** Hidden entries that are git config files holding a credential, as `hiddenPaths` found them. */
const gitCredentialEntries = new Set<string>();

/**
 * The absolute hidden paths (realpath'd where they exist), for the launcher
 * and the file tools. Pure apart from resolving links.
 */
export function hiddenPaths(input: HiddenInput): string[] {
  const anchor = (key: string) => absolute(key, input.home, input.workspace);
  const shown = new Set(
    Object.entries(input.user ?? {})
      .filter(([key, hide]) => !hide && input.merged?.[key] === false)
      .map(([key]) => anchor(key)),
  );
  // The CI token a checkout leaves in the repository's git config (git_credentials.ts).
  const gitFiles = gitCredentialFiles(input.workspace, input.home);
  for (const file of gitFiles) gitCredentialEntries.add(realpathLenient(file));
  const wanted = [
    ...DEFAULT_HIDDEN_IN_HOME.map((relative) => path.join(input.home, relative)),
    input.configDir,
    input.dataDir,
    ...gitFiles,
    ...Object.entries(input.merged ?? {}).filter(([, hide]) => hide !== false).map(([key]) =>
      anchor(key)
    ),
  ];
  const kept = wanted.filter((entry) => !shown.has(entry));
  // Most entries do not exist: the home folder's listing, read once, says so.
  const listings: Listings = new Map();
  return [...new Set(kept.map((entry) => realpathLenient(entry, 0, listings)))];
}

/**
 * The default list for a launcher built without one (tests, helpers): the
 * home folder's keys, skiff's default config and data folders.
 */
export function defaultHiddenFor(home: string, workspace: string): string[] {
  const env = (name: string) => {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined; // Not readable here (a Worker's env allowlist).
    }
  };
  const configHome = env("XDG_CONFIG_HOME") || path.join(home, ".config");
  const dataHome = env("XDG_DATA_HOME") || path.join(home, ".local", "share");
  return hiddenPaths({
    home,
    workspace,
    configDir: env("SKIFF_CONFIG_DIR") || path.join(configHome, "skiff"),
    dataDir: env("SKIFF_DATA_DIR") || path.join(dataHome, "skiff"),
  });
}

/** A hidden path that exists, and whether a folder or a file goes over it. */
export interface HiddenMount {
  path: string;
  folder: boolean;
  /**
   * For a git config file holding a credential: a copy without it, shown in
   * its place (git needs the rest); absent, an empty file is shown.
   */
  view?: string;
  /** A git config file (or a file it includes) holding a credential. */
  gitCredential?: boolean;
}

/**
 * What the sandbox mounts over, found where the hidden paths can be seen
 * (the engine's Worker may not even look at them). A path that does not
 * exist cannot be mounted over; it is skipped.
 */
export function hiddenMounts(hidden: readonly string[]): HiddenMount[] {
  const mounts: HiddenMount[] = [];
  const listings: Listings = new Map();
  for (const target of hidden) {
    // A listing that proves it absent saves the failing stat.
    if (presenceOf(target, listings) === "absent") continue;
    try {
      const info = Deno.statSync(target);
      if (info.isFile && gitCredentialEntries.has(target)) {
        // git needs the rest of its config, and stops at an include it cannot read.
        const view = gitConfigView(target);
        mounts.push({
          path: target,
          folder: false,
          gitCredential: true,
          ...(view ? { view } : {}),
        });
      } else if (info.isDirectory || info.isFile) {
        mounts.push({ path: target, folder: info.isDirectory });
      }
    } catch {
      // Missing, or not visible here: nothing to mount over.
    }
  }
  return mounts;
}

/**
 * The entries that apply to a session: one holding the workspace or an
 * extra folder would hide the work itself, so it is left out (the folder's
 * other contents are then not hidden; docs/security.md says so).
 */
export function hiddenAround(hidden: readonly string[], workDirs: readonly string[]): string[] {
  const roots = workDirs.map((dir) => realpathLenient(dir));
  const folded = foldedEntries(hidden);
  return hidden.filter((entry, index) =>
    !roots.some((root) => {
      const foldedRoot = root.toLowerCase();
      return couldHold(folded[index], foldedRoot, isPlainAbsolute(foldedRoot)) &&
        isWithin(entry, root);
    })
  );
}

/**
 * Whether `entry` holds `target` with case ignored, which it must to hold it
 * on any filesystem (both absolute: lowercasing keeps every `/` and segment
 * where it is): when not, `isWithin` need not ask how the entry's filesystem
 * treats case (two stats of a path the engine's Worker may not read, each a
 * thrown error, for every entry of the default list, at session open and at
 * the first file tool call; docs/performance.md). `foldedTarget` is the target lowercased.
 */
function couldHold(entry: FoldedEntry, foldedTarget: string, plainTarget: boolean): boolean {
  if (plainTarget && entry.plain) {
    return foldedTarget === entry.folded || foldedTarget.startsWith(entry.prefix);
  }
  return lexicallyWithin(entry.folded, foldedTarget);
}

/** A hidden entry lowercased, and whether it is a plain absolute path (then `prefix` holds what lies under it). */
interface FoldedEntry {
  folded: string;
  plain: boolean;
  prefix: string;
}

/** Each list's entries folded once (a session checks every file path against the same list). */
const foldedLists = new WeakMap<readonly string[], { entries: string[]; folded: FoldedEntry[] }>();

function foldedEntries(hidden: readonly string[]): FoldedEntry[] {
  const known = foldedLists.get(hidden);
  // The list is compared entry by entry: one changed since is folded again.
  if (
    known && known.entries.length === hidden.length &&
    known.entries.every((entry, index) => entry === hidden[index])
  ) {
    return known.folded;
  }
  const folded = hidden.map((entry) => {
    const lower = entry.toLowerCase();
    return {
      folded: lower,
      plain: isPlainAbsolute(lower),
      prefix: lower === "/" ? "/" : lower + "/",
    };
  });
  foldedLists.set(hidden, { entries: [...hidden], folded });
  return folded;
}

/**
 * The hidden entry holding `real` (an absolute, resolved path), or null.
 * `ownSpillFolder`, the session's own spilled output
 * (`<dataDir>/tool-output/<session>`), stays readable: truncated output tells
 * the model to read the rest there. Other sessions' folders stay hidden.
 */
export function hiddenHolder(
  hidden: readonly string[],
  real: string,
  ownSpillFolder?: string,
): string | null {
  const foldedTarget = real.toLowerCase();
  const plainTarget = isPlainAbsolute(foldedTarget);
  const folded = foldedEntries(hidden);
  const holder =
    hidden.find((entry, index) =>
      couldHold(folded[index], foldedTarget, plainTarget) && isWithin(entry, real)
    ) ?? null;
  // Resolved only for a path some entry holds: most checks are of workspace
  // files, and the folder (which may not exist yet) costs a failing realpath.
  if (holder === null || !ownSpillFolder) return holder;
  return isWithin(realpathLenient(ownSpillFolder), real) ? null : holder;
}

/** Why a file tool refuses `display`, and what the user changes to allow it. */
export function hiddenRefusal(display: string, holder: string): { reason: string; hint: string } {
  if (looksLikeGitCredentialFile(holder)) {
    return {
      reason: `${display} is hidden from the agent: it holds a git credential ` +
        `(an http extraheader, a token in a URL or a credential entry).`,
      hint: "Do not retry. Use `git remote -v` or `git log` for what git knows of the " +
        "repository. The user removes the credential (actions/checkout: " +
        "persist-credentials: false) to make the file readable.",
    };
  }
  return {
    reason: `${display} is hidden from the agent: ${holder} holds keys or other sessions.`,
    hint: `Do not retry. If the user wants it readable, they add "${holder}": false under ` +
      `${HIDDEN_CONFIG_KEY} in their global config (~/.config/skiff/config.json).`,
  };
}
