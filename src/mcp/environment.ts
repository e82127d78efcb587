/**
 * The environment a stdio MCP server starts with: a short allowlist from
 * skiff's own environment plus the server's `env`. API keys and tokens in
 * skiff's environment never reach a server unless its entry names them.
 */

import { BASE_ENV_NAMES, SKIFF_CHILD_MARKER } from "../sandbox/env.ts";

/** The child allowlist every process gets, plus what a package-downloading server needs. */
export const INHERITED_VARIABLES: readonly string[] = [
  ...BASE_ENV_NAMES,
  // Needed behind proxies that re-sign TLS, e.g. for a server that downloads packages.
  "NODE_EXTRA_CA_CERTS",
];

/** A server's environment: the allowlist's values, its own `env`, and the marker of a child of skiff. */
export function buildServerEnvironment(
  own: Record<string, string>,
  env: (name: string) => string | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = env(name);
    if (value !== undefined && value !== "") result[name] = value;
  }
  // Last: a server's own `env` cannot take the marker away.
  return { ...result, ...own, [SKIFF_CHILD_MARKER]: "1" };
}
