/**
 * From command-line options to an EngineSpec: the workspace, the loaded
 * config, the model and endpoint, the sandbox choice. Everything here can fail
 * with a UsageError or ConfigError (exit 2) before any session exists.
 */
import * as path from "node:path";
import { UsageError } from "../cli/exit_codes.ts";
import { loadConfig, readConfigFile } from "../config/load.ts";
import { findProjectConfig, GLOBAL_CONFIG_FILE } from "../config/locations.ts";
import { limitProjectConfig } from "./project_trust.ts";
import { parsePermissionFlag } from "../policy/flags.ts";
import type { Config } from "../config/schema.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import type { ApprovalAnswer, ApprovalRequest, EngineSpec } from "./engine_types.ts";
import { decideProjectServers, projectMcpServers } from "./mcp_trust.ts";
import { mcpSpec } from "./mcp_spec.ts";

export interface CommonOptions {
  dir?: string;
  model?: string;
  agent?: string;
  sandbox?: "read-only" | "workspace-write" | "full-access";
  addDir?: string[];
  allow?: string[];
  ask?: string[];
  deny?: string[];
  yes?: boolean;
}

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

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

/**
 * Load config and decide everything a session needs. `needsModel` is false
 * for commands that never call one (`skiff tool`).
 */
export async function prepare(
  options: CommonOptions,
  needsModel: boolean,
  askProjectServer?: (request: ApprovalRequest) => Promise<ApprovalAnswer>,
): Promise<Prepared> {
  const workspace = resolveWorkspace(options.dir);
  for (const rule of [...(options.allow ?? []), ...(options.ask ?? []), ...(options.deny ?? [])]) {
    try {
      parsePermissionFlag(rule);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const loaded = await loadConfig({
    workspace,
    flags: {
      ...(options.model ? { provider: { model: options.model } } : {}),
      ...(options.sandbox || options.addDir?.length
        ? {
          sandbox: {
            ...(options.sandbox ? { mode: options.sandbox } : {}),
            ...(options.addDir?.length ? { addDirs: options.addDir } : {}),
          },
        }
        : {}),
    },
  });
  const trust = await applyProjectTrust(loaded.config, workspace, loaded.configDir, options);
  const config = trust.config;
  const provider = config.provider ?? {};
  const model = provider.model ?? "";
  if (needsModel && !model) {
    throw new UsageError(
      'no model set. Pass --model <name>, set SKIFF_MODEL, or put "provider": {"model": "…"} in skiff.json or ~/.config/skiff/config.json.',
    );
  }
  const baseURL = provider.baseURL ?? DEFAULT_BASE_URL;
  const apiKey = trust.withholdApiKey ? "" : provider.apiKey ?? "";
  if (needsModel && !apiKey && baseURL === DEFAULT_BASE_URL) {
    throw new UsageError(
      `no API key for ${baseURL}. Set OPENAI_API_KEY, or point OPENAI_BASE_URL / provider.baseURL at a local server.`,
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
    config: config as Record<string, unknown>,
    permissionLayers: loaded.layers,
    model,
    agent: options.agent ?? "build",
    depth: 0,
    inheritedPermission: [],
    owns: [],
    mcp: {
      ...mcpSpec(config as Record<string, unknown>, workspace, config.sandbox?.env ?? []),
      blocked: [],
    },
    sandbox: {
      mode: config.sandbox?.mode ?? "workspace-write",
      network: config.sandbox?.network ?? false,
      addDirs,
      env: config.sandbox?.env ?? [],
    },
    flags: {
      allow: options.allow ?? [],
      ask: options.ask ?? [],
      deny: options.deny ?? [],
      yes: options.yes ?? false,
    },
    warnings: [...loaded.warnings, ...trust.warnings],
    interactive: Deno.stdin.isTerminal() && Deno.stderr.isTerminal(),
    provider: {
      baseURL,
      // Local servers need no key, but the client library insists on one.
      apiKey: apiKey || "not-needed",
      requestTimeoutMs: provider.requestTimeoutMs,
      maxRetries: provider.maxRetries,
      connectTimeoutMs: provider.connectTimeoutMs,
    },
  };
  await decideProjectServers(
    spec,
    projectMcpServers(spec, trust.projectMcp, trust.projectFile),
    spec.interactive ? askProjectServer : undefined,
  );
  return { spec, config, files: loaded.files };
}

async function applyProjectTrust(
  config: Config,
  workspace: string,
  configDir: string,
  options: CommonOptions,
) {
  const location = await findProjectConfig(workspace);
  const project = location
    ? {
      file: location.file,
      root: location.root,
      config: (await readConfigFile(location.file)) ?? {},
    }
    : undefined;
  const global = (await readConfigFile(path.join(configDir, GLOBAL_CONFIG_FILE))) ?? {};
  const limited = limitProjectConfig({
    config,
    project,
    user: {
      mode: options.sandbox ?? global.sandbox?.mode,
      network: global.sandbox?.network,
      baseURL: Deno.env.get("OPENAI_BASE_URL") ?? global.provider?.baseURL,
      apiKeyFromProject: project?.config.provider?.apiKey !== undefined,
      envNames: global.sandbox?.env,
    },
  });
  return { ...limited, projectMcp: project?.config.mcp ?? {}, projectFile: project?.file };
}
