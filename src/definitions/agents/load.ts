/**
 * Loads every agent a session can use: the built-ins, then markdown files
 * (global folders first, then project folders from the git root down), then
 * config entries. A later definition with the same name is layered on the
 * earlier one: the fields it gives replace, its tool toggles and permission
 * rules are added after the earlier ones, so they win.
 */
import * as path from "../../lib/path.ts";
import { builtinAgents } from "./builtin.ts";
import { AgentFieldError, agentFields, type AgentOverride } from "./fields.ts";
import { FrontmatterError, loadFrontmatterParserFor, parseFrontmatter } from "../frontmatter.ts";
import { defaultConfigDir } from "./discovery.ts";
import { type AgentFile, readAgentFiles } from "./files.ts";
import { withoutAllows } from "../../config/project_allows.ts";
import type { AgentDefinition, ConfigAgent, LoadedAgents } from "./types.ts";
import { homeDir } from "../../sandbox/paths.ts";

export type { LoadedAgents };

export interface LoadAgentsOptions {
  /** Absolute workspace root. */
  workspace: string;
  /** skiff's config folder; @default `$SKIFF_CONFIG_DIR` or `~/.config/skiff` */
  configDir?: string;
  /** The merged config's `agent` key. */
  configAgents?: Record<string, ConfigAgent>;
  /** Home folder for `~/.claude/agents` and friends; @default `$HOME` */
  home?: string;
  /** The project is not trusted: allow rules in the agent files it ships are dropped. */
  untrustedProject?: boolean;
}

/**
 * Every agent, the YAML parser loaded first when some agent file has
 * frontmatter; without such a file it is never evaluated.
 * Needs --allow-read on the workspace, its parents up to the git root, and the config folders.
 */
export async function loadAgentsAsync(options: LoadAgentsOptions): Promise<LoadedAgents> {
  const files = agentFilesOf(options);
  await loadFrontmatterParserFor(files.map((file) => file.text));
  return resolveAgents({
    files,
    configAgents: options.configAgents,
    untrustedProject: options.untrustedProject,
  });
}

/** `loadAgentsAsync` for a caller that has already loaded the frontmatter parser. */
export function loadAgents(options: LoadAgentsOptions): LoadedAgents {
  return resolveAgents({
    files: agentFilesOf(options),
    configAgents: options.configAgents,
    untrustedProject: options.untrustedProject,
  });
}

function agentFilesOf(options: LoadAgentsOptions): AgentFile[] {
  const home = options.home ?? homeDir();
  const configDir = options.configDir ??
    defaultConfigDir((name) => Deno.env.get(name), home);
  return readAgentFiles({ workspace: options.workspace, configDir, home });
}

export interface ResolveAgentsOptions {
  /** The agent files as read (`readAgentFiles`), lowest priority first. */
  files: AgentFile[];
  /** The merged config's `agent` key. */
  configAgents?: Record<string, ConfigAgent>;
  /** The project is not trusted: allow rules and `model` in the agent files it ships are dropped. */
  untrustedProject?: boolean;
}

/**
 * The agents from files already read: no I/O, so the host does it once for
 * the whole run. A file with frontmatter needs `loadFrontmatterParser()` first.
 */
export function resolveAgents(options: ResolveAgentsOptions): LoadedAgents {
  const warnings: string[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const agent of builtinAgents()) byName.set(agent.name, agent);

  for (const agentFile of options.files) {
    const name = path.basename(agentFile.file).slice(0, -".md".length);
    const override = parseAgentFile(agentFile, warnings);
    if (override?.permission && agentFile.project && options.untrustedProject) {
      override.permission = withoutAllows(override.permission);
    }
    // Choosing the model is the person's, as for a project's custom commands: not an untrusted project's.
    if (override?.model !== undefined && agentFile.project && options.untrustedProject) {
      warnings.push(
        `${agentFile.file}: model "${override.model}" is not used: the project is not trusted; ` +
          "the agent runs with your model. Trust the project (or pass --trust-project) to use it",
      );
      delete override.model;
    }
    if (override) apply(byName, name, override, agentFile.file, warnings);
  }
  for (const [name, entry] of Object.entries(options.configAgents ?? {})) {
    const where = { file: "config agent." + name, lineOf: () => 0 };
    try {
      const override = agentFields(entry as Record<string, unknown>, where, warnings);
      apply(byName, name, override, "config", warnings);
    } catch (error) {
      if (!(error instanceof AgentFieldError)) throw error;
      warnings.push(`config: agent "${name}" skipped: ${error.reason}`);
    }
  }
  return { agents: [...byName.values()], warnings };
}

function parseAgentFile(
  { file, text, error: readError }: AgentFile,
  warnings: string[],
): AgentOverride | undefined {
  if (text === undefined) {
    warnings.push(`${file}: could not be read (${readError}); agent skipped`);
    return undefined;
  }
  try {
    const parsed = parseFrontmatter(file, text);
    const override = agentFields(parsed.data, { file, lineOf: parsed.lineOf }, warnings);
    if (parsed.body) override.prompt = parsed.body;
    return override;
  } catch (error) {
    if (error instanceof FrontmatterError || error instanceof AgentFieldError) {
      warnings.push(`${error.file}:${error.line}: ${error.reason}; agent skipped`);
      return undefined;
    }
    throw error;
  }
}

function apply(
  byName: Map<string, AgentDefinition>,
  name: string,
  override: AgentOverride,
  source: string,
  warnings: string[],
): void {
  if (override.disable) {
    byName.delete(name);
    return;
  }
  const base = byName.get(name);
  const { disable: _disable, ...fields } = override;
  if (!base) {
    if (!fields.description) {
      warnings.push(
        `${source}: agent "${name}" has no description; add one so it can be chosen by description`,
      );
    }
    byName.set(name, {
      name,
      description: fields.description ?? "",
      mode: fields.mode ?? "all",
      ...fields,
      tools: fields.tools ?? {},
      permission: fields.permission ?? {},
      source,
    });
    return;
  }
  byName.set(name, {
    ...base,
    ...fields,
    // Spread keeps insertion order: base entries first, override entries after, so they win.
    tools: { ...withoutKeys(base.tools, fields.tools), ...fields.tools },
    permission: { ...withoutKeys(base.permission, fields.permission), ...fields.permission },
    source,
  });
}

/** Drops keys the override sets again, so its entries move to the end of the map. */
function withoutKeys<T extends Record<string, unknown>>(base: T, override?: T): T {
  if (!override) return base;
  return Object.fromEntries(Object.entries(base).filter(([key]) => !(key in override))) as T;
}
