/**
 * A project's own allow rules, found and taken out. A repository's
 * `skiff.json` is not the user's word: until the user trusts the project
 * (src/config/trusted_projects.ts), its allow rules — in `permission` and in
 * the `permission` of its `agent` entries — are dropped, while its deny and
 * ask rules, which only tighten, stay.
 */
import type { Config, PermissionConfig } from "./schema.ts";

/** `key(pattern)` for every allow rule in `permission`, for messages. */
export function describeAllows(permission: PermissionConfig | undefined): string[] {
  const found: string[] = [];
  for (const [key, rule] of Object.entries(permission ?? {})) {
    if (typeof rule === "string") {
      if (rule === "allow") found.push(key);
      continue;
    }
    for (const [pattern, action] of Object.entries(rule)) {
      if (action === "allow") found.push(`${key}(${pattern})`);
    }
  }
  return found;
}

/** The same rules without any allow. */
export function withoutAllows(permission: PermissionConfig): PermissionConfig {
  const strict: PermissionConfig = {};
  for (const [key, rule] of Object.entries(permission)) {
    if (typeof rule === "string") {
      if (rule !== "allow") strict[key] = rule;
      continue;
    }
    const kept = Object.fromEntries(
      Object.entries(rule).filter(([, action]) => action !== "allow"),
    );
    if (Object.keys(kept).length) strict[key] = kept;
  }
  return strict;
}

/** Every allow rule a project config holds, agents' included. */
export function projectAllows(config: Config): string[] {
  const found = describeAllows(config.permission);
  for (const [name, agent] of Object.entries(config.agent ?? {})) {
    found.push(...describeAllows(agent.permission).map((rule) => `agent ${name}: ${rule}`));
  }
  return found;
}

/**
 * The project config with its allow rules (its own and its agents') taken
 * out, and the language servers it names: a program the repository chose.
 */
export function withoutProjectAllows(config: Config): Config {
  const out: Config = { ...config };
  if (config.lsp?.servers) out.lsp = { ...config.lsp, servers: undefined };
  if (config.permission) out.permission = withoutAllows(config.permission);
  if (config.agent) {
    out.agent = Object.fromEntries(
      Object.entries(config.agent).map(([name, agent]) => [
        name,
        agent.permission ? { ...agent, permission: withoutAllows(agent.permission) } : agent,
      ]),
    );
  }
  return out;
}
