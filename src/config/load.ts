/**
 * Loads skiff's configuration: the global file, the nearest project file,
 * environment variables, then command-line flags, each validated on its own
 * (so an error names the file it came from) and merged in that order. Each
 * file is read once. Every layer's own content is kept beside the merged
 * result (`sources`), because the policy table needs to know which layer said
 * what and the project-trust rules what the project file said itself
 * (src/config/origin.ts): they work from this one reading, never from the
 * files again.
 */
import * as path from "../lib/path.ts";
import { readConfigText } from "./regular_file.ts";
import { ConfigError, type ConfigProblem } from "./errors.ts";
import { checkConfigLayer } from "./check.ts";
import {
  type EnvMap,
  expandTilde,
  findProjectConfig,
  GLOBAL_CONFIG_FILE,
  resolveConfigDir,
} from "./locations.ts";
import { deepMerge, isPlainObject, withoutUndefined } from "./merge.ts";
import type { Config, PermissionConfig } from "./schema.ts";

export type LayerSource = "global" | "project" | "env" | "flags";

/** One layer's permission section, in precedence order (later wins among allow/ask). */
export interface PermissionLayer {
  source: LayerSource;
  /** The file, for global and project layers. */
  path?: string;
  permission: PermissionConfig;
}

/** One layer's own content, as read and validated (paths anchored). */
export interface ConfigLayer {
  source: LayerSource;
  /** The file, for global and project layers. */
  path?: string;
  /** The folder the project file belongs to (its relative paths start there). */
  root?: string;
  config: Config;
}

export interface LoadedConfig {
  /** All layers merged and validated. */
  config: Config;
  /** Config files that were read, in the order applied. */
  files: string[];
  /** Permission sections of the layers that have one, global first, flags last. */
  layers: PermissionLayer[];
  /** The global config folder (agents, skills and AGENTS.md live next to it). */
  configDir: string;
  /** The folder holding the project config file, when there is one. */
  projectRoot?: string;
  /** Every layer's own content, global first, flags last: where each value came from. */
  sources: ConfigLayer[];
  /** The global config file's own content (paths anchored), when there is one. */
  global?: Config;
  /** The project config file and its own content (paths anchored, allows kept). */
  project?: { file: string; root: string; config: Config };
  /** Allow rules of an untrusted project file that were left out (`distrustProject`). */
  ignoredProjectAllows: string[];
  /** Things the user should know that did not stop loading. */
  warnings: string[];
}

export interface LoadConfigOptions {
  /** Absolute workspace folder; the project config is searched from here upward. */
  workspace: string;
  /** Config-shaped values from the command line; `undefined` values are ignored. */
  flags?: Config;
  /** Environment; by default the few variables skiff reads, from `Deno.env`. */
  env?: EnvMap;
  /** Home folder; by default `$HOME`. */
  home?: string;
  /** Reads one config file's text; throws `Deno.errors.NotFound` when absent. @default Deno.readTextFile */
  readTextFile?: (file: string) => Promise<string>;
}

/** Environment variable → config key it sets. */
const ENV_KEYS: [string, "apiKey" | "baseURL" | "model"][] = [
  ["OPENAI_API_KEY", "apiKey"],
  ["OPENAI_BASE_URL", "baseURL"],
  ["SKIFF_MODEL", "model"],
];

/** Variables read by default (needs `--allow-env` for these names). */
const ENV_NAMES = [
  "HOME",
  "USERPROFILE",
  "SKIFF_CONFIG_DIR",
  "XDG_CONFIG_HOME",
  ...ENV_KEYS.map(
    ([name]) => name,
  ),
];

/**
 * Load and merge all config layers. Throws `ConfigError` (exit code 2) when a
 * file cannot be parsed or a value is wrong. Needs read access to the config
 * folder and the folders above the workspace.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const env = options.env ?? readEnv();
  const home = options.home ?? env.HOME ?? env.USERPROFILE ?? "/";
  const workspace = path.resolve(options.workspace);
  const configDir = resolveConfigDir(env, home);
  const files: string[] = [];
  const warnings: string[] = [];
  const layers: ConfigLayer[] = [];
  // Only a regular file: a FIFO named config.json would make skiff wait at start.
  const read = options.readTextFile ?? readConfigText;

  const globalFile = path.join(configDir, GLOBAL_CONFIG_FILE);
  const globalConfig = await readConfigFile(globalFile, read);
  if (globalConfig !== undefined) {
    files.push(globalFile);
    layers.push({
      source: "global",
      path: globalFile,
      config: anchorPaths(globalConfig, configDir, home),
    });
  }

  const project = findProjectConfig(workspace);
  if (project) {
    if (project.ignored) {
      warnings.push(`${project.ignored} is ignored because ${project.file} is in the same folder.`);
    }
    const projectConfig = await readConfigFile(project.file, read);
    if (projectConfig !== undefined) {
      files.push(project.file);
      layers.push({
        source: "project",
        path: project.file,
        root: project.root,
        config: anchorPaths(projectConfig, project.root, home),
      });
    }
  }

  const envConfig = await configFromEnv(env);
  if (envConfig) layers.push({ source: "env", config: envConfig });

  if (options.flags) {
    const flags = await checkConfigLayer(withoutUndefined(options.flags), "command line");
    layers.push({ source: "flags", config: anchorPaths(flags, workspace, home) });
  }

  return {
    ...assembleLayers(layers),
    files,
    configDir,
    projectRoot: project?.root,
    ignoredProjectAllows: [],
    warnings,
  };
}

/** The merged config and the per-layer views of it, from the layers alone (no file is read). */
export function assembleLayers(
  sources: ConfigLayer[],
): Pick<LoadedConfig, "config" | "layers" | "sources" | "global" | "project"> {
  const project = sources.find((layer) => layer.source === "project");
  return {
    config: mergeLayers(sources.map((layer) => layer.config)),
    layers: sources.flatMap((layer) =>
      layer.config.permission
        ? [{ source: layer.source, path: layer.path, permission: layer.config.permission }]
        : []
    ),
    sources,
    global: sources.find((layer) => layer.source === "global")?.config,
    project: project?.path && project.root
      ? { file: project.path, root: project.root, config: project.config }
      : undefined,
  };
}

/**
 * Read and validate one config file. Returns undefined when it does not exist;
 * an empty file counts as `{}`.
 */
export async function readConfigFile(
  file: string,
  read: (file: string) => Promise<string> = readConfigText,
): Promise<Config | undefined> {
  const data = await readJsoncFile(file, read);
  if (data === undefined) return undefined;
  return await checkConfigLayer(data, file);
}

/**
 * Read a JSONC file whose top level must be an object, without validating its
 * keys (for formats other than skiff's own, such as `.mcp.json`). Returns
 * undefined when the file does not exist. Throws `ConfigError`.
 */
export async function readJsoncFile(
  file: string,
  read: (file: string) => Promise<string> = readConfigText,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError(file, [{ keyPath: "", message: unreadable(file, error) }]);
  }
  if (text.trim() === "") return {};
  // The parser loads with the first file found: a start with no config file never evaluates it.
  const { JsoncSyntaxError, parseJsonc } = await import("./jsonc.ts");
  let data: unknown;
  try {
    data = parseJsonc(text);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    throw new ConfigError(file, [{ keyPath: "", message: error.reason }], {
      line: error.line,
      column: error.column,
    });
  }
  if (!isPlainObject(data)) {
    const got = Array.isArray(data) ? "a list" : JSON.stringify(data);
    throw new ConfigError(file, [{
      keyPath: "",
      message: `expected an object ({ … }) at the top of the file, got ${got}`,
    }]);
  }
  return data;
}

/** Why a config file could not be read, and what to do about it. */
function unreadable(file: string, error: unknown): string {
  if (error instanceof Deno.errors.IsADirectory) {
    return "is a folder, not a file; a config is one JSON file: remove or rename the folder";
  }
  if (error instanceof Deno.errors.NotADirectory) {
    return `cannot be read: ${path.dirname(file)} is a file, not a folder; ` +
      "point SKIFF_CONFIG_DIR (or XDG_CONFIG_HOME) at a folder, or remove the file";
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return `cannot be read (permission denied); make it readable (chmod u+r ${file}) or move it away`;
  }
  if (error instanceof Deno.errors.NotCapable) {
    return "cannot be read: skiff was not given read access to it (--allow-read)";
  }
  return `cannot be read (${(error as Error).message}); check that it is a readable file`;
}

/**
 * Merge layers in order. Objects merge key by key. An MCP server entry with
 * a `command` or `url` replaces the earlier one whole (half of a stdio entry
 * and half of a remote one would be neither); an entry with settings only
 * (`{"enabled": false}`) changes the earlier one. `sandbox.addDirs`,
 * `sandbox.env` and `sandbox.protect` collect entries from every layer (a
 * project's list of protected files adds to the user's, never replaces it).
 */
export function mergeLayers(configs: Config[]): Config {
  let merged: Config = {};
  const addDirs: string[] = [];
  const envNames: string[] = [];
  const protect: string[] = [];
  for (const config of configs) {
    const { mcp, ...rest } = config;
    merged = deepMerge(merged, rest);
    for (const [name, server] of Object.entries(mcp ?? {})) {
      const earlier = merged.mcp?.[name];
      const defines = "command" in server || "url" in server;
      merged.mcp = {
        ...merged.mcp,
        [name]: defines || !earlier ? server : { ...earlier, ...server },
      };
    }
    addDirs.push(...config.sandbox?.addDirs ?? []);
    envNames.push(...config.sandbox?.env ?? []);
    protect.push(...config.sandbox?.protect ?? []);
  }
  if (addDirs.length) merged.sandbox = { ...merged.sandbox, addDirs: [...new Set(addDirs)] };
  if (envNames.length) merged.sandbox = { ...merged.sandbox, env: [...new Set(envNames)] };
  if (protect.length) merged.sandbox = { ...merged.sandbox, protect: [...new Set(protect)] };
  return merged;
}

async function configFromEnv(env: EnvMap): Promise<Config | undefined> {
  const provider: Record<string, string> = {};
  for (const [name, key] of ENV_KEYS) {
    const value = env[name]?.trim();
    if (value) provider[key] = value;
  }
  if (!Object.keys(provider).length) return undefined;
  try {
    return await checkConfigLayer({ provider }, "environment");
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Name the variable the user set, not the key it maps to.
    const problems: ConfigProblem[] = error.problems.map((problem) => {
      const variable = ENV_KEYS.find(([, key]) => problem.keyPath === `provider.${key}`)?.[0];
      return variable ? { ...problem, keyPath: variable } : problem;
    });
    throw new ConfigError("environment", problems);
  }
}

/** Folder paths in a layer are relative to that layer's folder; `~` is home. */
function anchorPaths(config: Config, base: string, home: string): Config {
  const anchor = (p: string) => path.resolve(base, expandTilde(p, home));
  let out = config;
  if (config.sandbox?.addDirs) {
    out = { ...out, sandbox: { ...config.sandbox, addDirs: config.sandbox.addDirs.map(anchor) } };
  }
  if (config.mcp) {
    const mcp: NonNullable<Config["mcp"]> = {};
    for (const [name, server] of Object.entries(config.mcp)) {
      // A cwd holding ${VAR} is left for the MCP module, which expands it first.
      const cwd = "cwd" in server ? server.cwd : undefined;
      mcp[name] = cwd && !cwd.includes("${") ? { ...server, cwd: anchor(cwd) } : server;
    }
    out = { ...out, mcp };
  }
  return out;
}

function readEnv(): EnvMap {
  const env: EnvMap = {};
  for (const name of ENV_NAMES) {
    try {
      env[name] = Deno.env.get(name);
    } catch {
      // Not allowed to read it: treated as unset.
    }
  }
  return env;
}
