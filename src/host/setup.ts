/**
 * From command-line options to an EngineSpec: the workspace, the loaded
 * config, the model and endpoint, the sandbox choice. Everything here can fail
 * with a UsageError or ConfigError (exit 2) before any session exists.
 */
import * as path from "../lib/path.ts";
import { UsageError } from "../contracts/usage_error.ts";
import { REASONING_EFFORTS, type ReasoningEffort } from "../contracts/reasoning_effort.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { distrustProject } from "../config/origin.ts";
import { GLOBAL_CONFIG_FILE } from "../config/locations.ts";
import {
  applyProjectTrust,
  decideProjectServers,
  decideProjectTrust,
  findTrustSubjects,
  serversForTrust,
  trustRoot,
} from "../trust/project_trust.ts";
import { ownProjectRules, withOwnProjectRules } from "../permission/project_rules.ts";
import { readAgentFiles } from "../definitions/agents/files.ts";
import { resolveAgents } from "../definitions/agents/load.ts";
import { primaryModel, settleAgentModels } from "../definitions/agents/models.ts";
import { loadFrontmatterParserFor } from "../definitions/frontmatter.ts";
import { homeDir } from "../sandbox/paths.ts";
import { allowedEnvNames } from "../sandbox/env.ts";
import { hiddenMounts, hiddenPaths } from "../sandbox/hidden.ts";
import { limitsWithProject } from "../sandbox/limits.ts";
import { parsePermissionFlag } from "../permission/flags.ts";
import {
  claudePermissionLayers,
  claudeProjectAllows,
  claudeSettingsReader,
} from "../permission/claude_layers.ts";
import type { Config } from "../config/schema.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import type { ApprovalAnswer, ApprovalRequest, EngineSpec } from "../engine/types.ts";
import { mcpSources } from "../mcp/sources.ts";
import { projectMcpServers } from "../trust/mcp_trust.ts";
import { resolveMcpServers } from "../mcp/config.ts";
import { mcpSpec } from "./mcp_spec.ts";
import { projectHookSubjects, sessionHookSpecs } from "../hooks/sources.ts";

export interface CommonOptions {
  dir?: string;
  model?: string;
  /** `--reasoning-effort`: over the config's, each model's own included. */
  reasoningEffort?: string;
  agent?: string;
  sandbox?: "read-only" | "workspace-write" | "full-access";
  /** `--sandbox-backend`: which OS sandbox runs commands on Linux. */
  sandboxBackend?: string;
  addDir?: string[];
  allow?: string[];
  ask?: string[];
  deny?: string[];
  yes?: boolean;
  /** `--trust-project`: the project's own allow rules apply this run. */
  trustProject?: boolean;
  /** `--no-memory` (false): no harness memory in the prompt or the tools. */
  memory?: boolean;
}

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** What `prepare` found missing, beside the message naming each: the chat offers to set it up. */
export interface Missing {
  model: boolean;
  /** No key for the default endpoint (a local server needs none). */
  apiKey: boolean;
  /** The endpoint the config and environment point at. */
  baseURL: string;
  /** The key they give ("" for none): the setup lists the endpoint's models with it. */
  knownKey: string;
  /** The user's global config file, where a first-run setup writes. */
  globalFile: string;
}

/**
 * Whether a run at `baseURL` cannot go without an API key: the hosted
 * default needs one, a local server may not (`skiff run` and `skiff doctor`).
 */
export function endpointNeedsKey(baseURL: string): boolean {
  return baseURL === DEFAULT_BASE_URL;
}

/** A model or key is missing before anything can run (exit 2); `missing` says which. */
export class MissingPrerequisites extends UsageError {
  constructor(message: string, readonly missing: Missing) {
    super(message);
  }
}

const BACKENDS = ["auto", "bwrap", "landlock"] as const;

/** `--sandbox-backend`, else `SKIFF_SANDBOX_BACKEND`: the user's own word, like a flag. */
export function sandboxBackendFlag(
  flag: string | undefined,
  getEnv: (name: string) => string | undefined = (name) => Deno.env.get(name),
): (typeof BACKENDS)[number] | undefined {
  const value = flag ?? getEnv("SKIFF_SANDBOX_BACKEND");
  if (value === undefined || value === "") return undefined;
  if ((BACKENDS as readonly string[]).includes(value)) return value as (typeof BACKENDS)[number];
  const source = flag === undefined ? "SKIFF_SANDBOX_BACKEND" : "--sandbox-backend";
  throw new UsageError(
    `${source} is '${value}'; expected one of ${BACKENDS.join(", ")}. ` +
      "Run `skiff doctor` to see which backends work here.",
  );
}

/** `--reasoning-effort`, checked: commander checks it too, but not every caller goes through it. */
function reasoningEffortOption(value: string | undefined): ReasoningEffort | undefined {
  if (value === undefined) return undefined;
  if ((REASONING_EFFORTS as readonly string[]).includes(value)) return value as ReasoningEffort;
  throw new UsageError(
    `--reasoning-effort is '${value}'; expected one of ${REASONING_EFFORTS.join(", ")}.`,
  );
}

/** The workspace folder: `--dir` or the current folder, real and existing. */
export function resolveWorkspace(dir: string | undefined): string {
  const wanted = path.resolve(dir ?? Deno.cwd());
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(wanted);
  } catch {
    throw new UsageError(
      `workspace folder ${wanted} does not exist. Pass an existing folder to --dir.`,
    );
  }
  if (!info.isDirectory) throw new UsageError(`--dir ${wanted} is not a folder.`);
  return Deno.realPathSync(wanted);
}

export interface Prepared {
  spec: EngineSpec;
  config: Config;
  files: string[];
}

/** What `prepare` reads through; a test passes its own. */
export interface PrepareDeps {
  /** Reads a config file's text. @default Deno.readTextFile */
  readTextFile?: (file: string) => Promise<string>;
  /** Reads an agent file's text. @default Deno.readTextFileSync */
  readAgentFile?: (file: string) => string;
}

/**
 * Load config (each file once) and decide everything a session needs.
 * `needsModel` is false for commands that never call one (`skiff tool`).
 */
export async function prepare(
  options: CommonOptions,
  needsModel: boolean,
  askAtStart?: (request: ApprovalRequest) => Promise<ApprovalAnswer>,
  deps: PrepareDeps = {},
): Promise<Prepared> {
  const workspace = resolveWorkspace(options.dir);
  for (const action of ["allow", "ask", "deny"] as const) {
    for (const rule of options[action] ?? []) {
      try {
        parsePermissionFlag(rule, action);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
  }
  const backend = sandboxBackendFlag(options.sandboxBackend);
  const reasoningEffortFlag = reasoningEffortOption(options.reasoningEffort);
  const flags: Config = {
    ...(options.model ? { provider: { model: options.model } } : {}),
    ...(options.sandbox || options.addDir?.length || backend
      ? {
        sandbox: {
          ...(options.sandbox ? { mode: options.sandbox } : {}),
          ...(backend ? { backend } : {}),
          ...(options.addDir?.length ? { addDirs: options.addDir } : {}),
        },
      }
      : {}),
    ...(options.memory === false ? { memory: { enabled: false } } : {}),
  };
  const interactive = Deno.stdin.isTerminal() && Deno.stderr.isTerminal();
  let loaded = await loadConfig({ workspace, flags, readTextFile: deps.readTextFile });
  // Each agent file read once: for the trust question here and the agents of the whole session.
  const agentFiles = readAgentFiles({
    workspace,
    configDir: loaded.configDir,
    home: homeDir(),
    read: deps.readAgentFile,
  });
  // The YAML parser only when some agent file has frontmatter: most starts never evaluate it.
  await loadFrontmatterParserFor(agentFiles.map((file) => file.text));
  const userFlags = {
    allow: options.allow ?? [],
    ask: options.ask ?? [],
    deny: options.deny ?? [],
    yes: options.yes ?? false,
  };
  // The project's MCP servers, found once: the trust question lists them, and
  // after the decision the same list says which start. Whether they start
  // does not depend on what else trust changes in the config.
  const previewConfig = applyProjectTrust(loaded, false).config;
  const projectServers = projectMcpServers({
    workspace,
    mcp: projectMcp(previewConfig, loaded, workspace),
  });
  // Claude Code's settings, each file read once: its allows are part of what trust grants.
  const readClaudeSettings = claudeSettingsReader();
  // The rules the user keeps for this project in their own config hold whatever its trust.
  const globalFile = path.join(loaded.configDir, GLOBAL_CONFIG_FILE);
  const projectRoot = trustRoot(workspace, loaded.project?.root);
  const ownRules = ownProjectRules(loaded.global, projectRoot);
  const subjects = findTrustSubjects(
    workspace,
    loaded,
    agentFiles.filter((file) => file.project),
    serversForTrust({
      permissionLayers: withOwnProjectRules(loaded.layers, ownRules, globalFile),
      flags: userFlags,
    }, projectServers),
  );
  subjects.files.push(...claudeProjectAllows(workspace, readClaudeSettings));
  const hookFiles = {
    home: homeDir(),
    workspace,
    user: loaded.global?.hooks
      ? { file: path.join(loaded.configDir, GLOBAL_CONFIG_FILE), hooks: loaded.global.hooks }
      : undefined,
    project: loaded.project?.config.hooks
      ? { file: loaded.project.file, hooks: loaded.project.config.hooks }
      : undefined,
    readClaude: readClaudeSettings,
  };
  // A project's hooks run code: trusting it says yes to them too.
  subjects.files.push(...projectHookSubjects(hookFiles));
  const projectTrust = await decideProjectTrust({
    subjects,
    global: loaded.global,
    globalFile,
    flag: options.trustProject ?? false,
    ask: interactive ? askAtStart : undefined,
  });
  // The same reading, with the project's allow rules left out: no file is read again.
  if (!projectTrust.trusted) loaded = distrustProject(loaded);
  const trust = applyProjectTrust(loaded, projectTrust.trusted);
  const claude = claudePermissionLayers({
    home: homeDir(),
    workspace,
    projectTrusted: projectTrust.trusted,
    read: readClaudeSettings,
  });
  const hooks = sessionHookSpecs({
    ...hookFiles,
    projectTrusted: projectTrust.trusted,
    userUnsandboxed: loaded.global?.sandbox?.unsandboxedHooks === true,
  });
  if (loaded.project?.config.sandbox?.unsandboxedHooks !== undefined) {
    hooks.warnings.push(
      `${loaded.project.file}: sandbox.unsandboxedHooks is ignored: only your global config can let hooks out of the sandbox`,
    );
  }
  const config = trust.config;
  const provider = config.provider ?? {};
  const baseURL = provider.baseURL ?? DEFAULT_BASE_URL;
  // Once, here: the Worker's permissions, its session and its subagents use this list.
  const resolvedAgents = settleAgentModels(
    resolveAgents({
      files: agentFiles,
      configAgents: config.agent,
      untrustedProject: !projectTrust.trusted,
    }),
    {
      baseURL,
      model: provider.model ?? "",
      knownModels: [...Object.keys(config.models ?? {}), ...Object.keys(provider.models ?? {})],
    },
  );
  // The top-level agent's own model counts too, below --model (src/definitions/agents/models.ts).
  const { model } = primaryModel(
    resolvedAgents.agents,
    options.agent ?? "build",
    provider.model ?? "",
    options.model,
  );
  // Every missing prerequisite at once: a newcomer fixes them in one go, not one per try.
  const missing: string[] = [];
  if (needsModel && !model) {
    missing.push(
      'no model set. Pass --model <name>, set SKIFF_MODEL, or put "provider": {"model": "…"} in skiff.json or ~/.config/skiff/config.json.',
    );
  }
  const apiKey = provider.apiKey ?? "";
  const keyMissing = needsModel && !apiKey && endpointNeedsKey(baseURL);
  if (keyMissing) {
    missing.push(
      `no API key for ${baseURL}. Set OPENAI_API_KEY, or point OPENAI_BASE_URL / provider.baseURL at a local server.`,
    );
  }
  if (missing.length) {
    throw new MissingPrerequisites(
      missing.length === 1
        ? missing[0]
        : `${missing.length} things are missing before skiff can run:\n${
          missing.map((line) => `  - ${line}`).join("\n")
        }`,
      {
        model: needsModel && !model,
        apiKey: keyMissing,
        baseURL,
        knownKey: apiKey,
        globalFile: path.join(loaded.configDir, GLOBAL_CONFIG_FILE),
      },
    );
  }
  const addDirs = (config.sandbox?.addDirs ?? []).map((dir) => {
    const absolute = path.resolve(workspace, dir);
    try {
      return Deno.realPathSync(absolute);
    } catch {
      throw new UsageError(`--add-dir ${absolute} does not exist.`);
    }
  });
  const spec: EngineSpec = {
    workspace,
    dataDir: resolveDataDir(Deno.env.toObject()),
    configDir: loaded.configDir,
    permissionLayers: [
      ...claude.layers,
      ...withOwnProjectRules(loaded.layers, ownRules, globalFile),
    ],
    model,
    agent: options.agent ?? "build",
    depth: 0,
    inheritedPermission: [],
    owns: [],
    mcp: projectMcp(config, loaded, workspace),
    projectTrusted: projectTrust.trusted,
    ...(projectTrust.trusted ? {} : { ownRulesRoot: projectRoot }),
    configAgents: config.agent,
    resolvedAgents,
    sandbox: {
      mode: config.sandbox?.mode ?? "workspace-write",
      backend: config.sandbox?.backend ?? "auto",
      network: config.sandbox?.network ?? false,
      addDirs,
      env: config.sandbox?.env ?? [],
      protect: config.sandbox?.protect,
      ...sandboxGuards(config, loaded, workspace),
    },
    flags: userFlags,
    ...(hooks.hooks.length ? { hooks: hooks.hooks } : {}),
    warnings: [
      ...loaded.warnings,
      ...projectTrust.warnings,
      ...trust.warnings,
      ...claude.warnings,
      ...hooks.warnings,
    ],
    interactive,
    provider: {
      baseURL,
      // Local servers need no key, but the client library insists on one.
      apiKey: apiKey || "not-needed",
      requestTimeoutMs: provider.requestTimeoutMs,
      maxRetries: provider.maxRetries,
      connectTimeoutMs: provider.connectTimeoutMs,
      wire: provider.wire,
      modelWires: modelWires(provider.models),
      modelDialects: provider.models,
      reasoningEffort: provider.reasoningEffort,
      ...(reasoningEffortFlag ? { reasoningEffortFlag } : {}),
      auth: provider.auth,
      apiVersion: provider.apiVersion,
      headers: provider.headers,
      dialect: provider.dialect,
    },
    settings: {
      models: config.models,
      memory: config.memory?.enabled !== false,
      compaction: config.compaction,
      undo: config.undo,
      toolOutput: config.toolOutput,
      maxSubagentDepth: config.subagents?.maxDepth,
      lsp: config.lsp,
      idleNotificationSeconds: config.idleNotificationSeconds,
    },
  };
  decideProjectServers(spec, projectServers);
  // Once, here: the Worker's permissions and the MCP client use this result.
  if (spec.mcp.enabled) spec.mcp.resolved = resolveMcpServers(mcpSources(spec));
  return { spec, config, files: loaded.files };
}

/** Hidden paths and resource limits: a project file may add to them, never loosen them. */
function sandboxGuards(config: Config, loaded: LoadedConfig, workspace: string) {
  const user = loaded.global?.sandbox;
  const hidden = hiddenPaths({
    home: homeDir(),
    workspace,
    configDir: loaded.configDir,
    dataDir: resolveDataDir(Deno.env.toObject()),
    merged: config.sandbox?.hidden,
    user: user?.hidden,
  });
  return {
    hidden,
    hiddenMounts: hiddenMounts(hidden),
    limits: limitsWithProject(user?.limits, config.sandbox?.limits),
  };
}

/**
 * The MCP part of the spec. `userServers` holds the user's own servers only
 * (the global config's); the project file's entries travel apart, so one of
 * them can never pass for the user's (src/mcp/config.ts).
 */
function projectMcp(config: Config, loaded: LoadedConfig, workspace: string): EngineSpec["mcp"] {
  const own = loaded.global?.mcp ?? {};
  const userServers = Object.keys(own).length ? own : undefined;
  const projectServers = loaded.project?.config.mcp ?? {};
  const project = Object.keys(projectServers).length && loaded.project
    ? { file: loaded.project.file, root: loaded.project.root, servers: projectServers }
    : undefined;
  const spec = mcpSpec({ mcp: userServers }, workspace, config.sandbox?.env ?? []);
  return {
    ...spec,
    enabled: spec.enabled || project !== undefined,
    blocked: [],
    ...(userServers ? { userServers } : {}),
    project,
    projectVariables: [...allowedEnvNames(config.sandbox?.env ?? []), "NODE_EXTRA_CA_CERTS"],
  };
}

/** The wire protocol set for each model in `provider.models`. */
function modelWires(
  models: NonNullable<Config["provider"]>["models"],
): Record<string, "chat" | "responses"> | undefined {
  const wires = Object.entries(models ?? {}).flatMap(([id, settings]) =>
    settings.wire ? [[id, settings.wire] as const] : []
  );
  return wires.length ? Object.fromEntries(wires) : undefined;
}
