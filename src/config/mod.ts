/**
 * The config module's public face: load the layered config, and the types
 * callers use. Importing this loads zod; import types with `import type`.
 */
export {
  type LayerSource,
  loadConfig,
  type LoadConfigOptions,
  type LoadedConfig,
  mergeLayers,
  type PermissionLayer,
  readConfigFile,
  readJsoncFile,
} from "./load.ts";
export { ConfigError, type ConfigProblem, validateConfig } from "./errors.ts";
export { JsoncSyntaxError, parseJsonc } from "./jsonc.ts";
export {
  findProjectConfig,
  GLOBAL_CONFIG_FILE,
  PROJECT_CONFIG_FILES,
  resolveConfigDir,
} from "./locations.ts";
export * from "./schema.ts";
