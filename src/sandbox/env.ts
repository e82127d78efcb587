/**
 * The environment a child process (bash, an MCP server) receives: a short
 * allowlist plus names the user configured, never a credential. The parent's
 * environment holds API keys; a child that could read them could send them
 * anywhere it can reach.
 */

/** Always passed through when set. */
export const BASE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "TERM",
  "USER",
  "SHELL",
  "TMPDIR",
];

/**
 * Set in the environment of every process skiff starts (a command, an MCP
 * server). `skiff mcp serve` and `skiff mcp list` refuse to start where it
 * is set, so skiff never nests inside itself. It only ever refuses: anyone
 * can set it (a project's script, a shell profile), so nothing may be
 * granted or skipped because of it.
 */
export const SKIFF_CHILD_MARKER = "SKIFF_CHILD";

/** Names that look like credentials are refused even when configured. */
const SECRET_NAME =
  /(API_?KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|PRIVATE_?KEY|(^|_)AUTH($|_)|(^|_)PAT$)/i;

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The allowlisted names, configured extras included, secrets excluded. */
export function allowedEnvNames(extraNames: readonly string[] = []): string[] {
  const names = new Set(BASE_ENV_NAMES);
  for (const name of extraNames) if (!looksSecret(name)) names.add(name);
  return [...names];
}

/**
 * The child's environment. `source` is injectable so tests need no real
 * environment; by default it reads Deno.env for the allowed names only (so
 * the Worker needs `--allow-env` for just these).
 */
export function childEnv(
  extraNames: readonly string[] = [],
  source: (name: string) => string | undefined = (name) => Deno.env.get(name),
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of allowedEnvNames(extraNames)) {
    const value = source(name);
    if (value !== undefined) env[name] = value;
  }
  env[SKIFF_CHILD_MARKER] = "1";
  return env;
}

/**
 * Set for every sandboxed command: git takes a folder for a bare repository
 * only when told so (`--git-dir`, `GIT_DIR`). A folder the agent wrote that
 * looks like one (HEAD, objects/, refs/, config) would otherwise be a
 * repository whose config names programs git runs (`remote.*.uploadpack` on
 * `git -C folder fetch`), under a rule that allows only `git *`.
 */
export const SANDBOX_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "safe.bareRepository",
  GIT_CONFIG_VALUE_0: "explicit",
};
