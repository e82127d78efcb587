/**
 * Sandbox modes and the settings every sandbox piece reads. `workspace-write`
 * is the default: the agent may change the workspace and nothing else.
 */

export type SandboxMode = "read-only" | "workspace-write" | "full-access";

export const SANDBOX_MODES: readonly SandboxMode[] = [
  "read-only",
  "workspace-write",
  "full-access",
];

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}

/** What the launchers need to know to wrap a process. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** Absolute, realpath'd workspace. */
  workspace: string;
  /** `--add-dir` folders: writable like the workspace (read-only in read-only mode). */
  addDirs: string[];
  /**
   * Folders commands see read-only, bound before the writable ones: the
   * session's own workspace and add-dirs when a task that owns some paths
   * gets only those as `workspace`/`addDirs` (src/engine/launcher.ts), so the
   * rest stays visible even where a private /tmp or /run would hide it.
   */
  visible?: string[];
  /** `sandbox.network`: may processes reach the network? Off by default. */
  network: boolean;
  /** Extra environment names children may see (never credentials). */
  envNames: string[];
  /** Where copies of git config files without their credentials are written (git_credentials.ts). */
  gitViews?: string;
  /** What commands may not read (src/sandbox/hidden.ts). @default the user's keys */
  hidden?: { path: string; folder: boolean; view?: string; gitCredential?: boolean }[];
  /** Resource limits (src/sandbox/limits.ts). @default DEFAULT_LIMITS */
  limits?: { tmpMB: number; processes: number };
}
