/**
 * Where definition files live. Project folders are looked for in every
 * directory from the git root down to the workspace, so a monorepo package
 * sees its own folders and the repository's; nearer ones come later and win.
 */
import * as path from "../../lib/path.ts";
import { findGitRoot } from "../../lib/git_root.ts";
import { realPathInside } from "../../config/regular_file.ts";
import { realpathLenient } from "../../sandbox/paths.ts";

/** Directories from the git root (or the workspace when there is none) down to the workspace. */
export function projectDirs(workspace: string): string[] {
  const start = path.resolve(workspace);
  const root = findGitRoot(start);
  if (root === null) return [start];
  const chain = [start];
  for (let current = start; current !== root;) {
    current = path.dirname(current);
    chain.push(current);
  }
  return chain.reverse();
}

export function exists(target: string): boolean {
  try {
    Deno.statSync(target);
    return true;
  } catch {
    return false;
  }
}

export function isDirectory(target: string): boolean {
  try {
    return Deno.statSync(target).isDirectory;
  } catch {
    return false;
  }
}

/** Names in a directory, sorted so loading order never depends on the filesystem. */
export function listDir(dir: string): Deno.DirEntry[] {
  if (!isDirectory(dir)) return [];
  try {
    return [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}

/** The skiff config folder: `$SKIFF_CONFIG_DIR`, else `$XDG_CONFIG_HOME/skiff`, else `~/.config/skiff`. */
export function defaultConfigDir(env: (name: string) => string | undefined, home: string): string {
  const explicit = env("SKIFF_CONFIG_DIR");
  if (explicit) return explicit;
  const xdg = env("XDG_CONFIG_HOME");
  return path.join(xdg || path.join(home, ".config"), "skiff");
}

/** Agent folders inside a project directory, in rising priority. */
const PROJECT_AGENT_FOLDERS = [
  ".claude/agents",
  ".opencode/agent",
  ".opencode/agents",
  ".skiff/agents",
];

/** The user's own agent folders, lowest priority first. */
export function userAgentFolders(configDir: string, home: string): string[] {
  return [
    path.join(home, ".claude", "agents"),
    path.join(home, ".config", "opencode", "agent"),
    path.join(home, ".config", "opencode", "agents"),
    path.join(configDir, "agents"),
  ];
}

/**
 * Every markdown agent file, lowest priority first (a later one layers over
 * an earlier one). A project's agent folder counts only when its real path
 * stays inside the project: a `.claude/agents` linked to a folder elsewhere
 * would hand that folder's files to the model as prompts.
 */
export function agentFiles(workspace: string, configDir: string, home: string): string[] {
  const dirs = projectDirs(workspace);
  const projectFolders = dirs.flatMap((dir) =>
    PROJECT_AGENT_FOLDERS.map((folder) => path.join(dir, folder))
  ).filter((folder) => realPathInside(folder, realpathLenient(dirs[0])) !== null);
  const folders = [...userAgentFolders(configDir, home), ...projectFolders];
  return [...new Set(folders)].flatMap((folder) =>
    listDir(folder)
      .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
      .map((entry) => path.join(folder, entry.name))
  );
}
