/**
 * The shape of a skiff config file, as zod schemas. Every object is strict:
 * a misspelt key is an error the user sees, never a setting silently ignored.
 * The types other modules use are inferred from here, so they import types
 * only (`import type`) and never load zod themselves.
 */
import { z } from "zod";

const positiveInt = () => z.int().positive();

export const PermissionActionSchema = z.enum(["allow", "ask", "deny"]);

/** One action for the whole key, or wildcard pattern → action. */
export const PermissionRuleSchema = z.union([
  PermissionActionSchema,
  z.record(z.string(), PermissionActionSchema),
]);

/** Permission key (bash, read, edit, an MCP tool name…) → rule. */
export const PermissionSchema = z.record(z.string(), PermissionRuleSchema);

export const ProviderSchema = z.strictObject({
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  requestTimeoutMs: positiveInt().optional(),
  maxRetries: z.int().min(0).max(100).optional(),
  connectTimeoutMs: positiveInt().optional(),
});

export const ModelLimitsSchema = z.strictObject({
  context: positiveInt().optional(),
  output: positiveInt().optional(),
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const SandboxSchema = z.strictObject({
  mode: z.enum(["read-only", "workspace-write", "full-access"]).optional(),
  network: z.boolean().optional(),
  addDirs: z.array(z.string().min(1)).optional(),
  env: z.array(z.string().regex(ENV_NAME, { error: "expected an environment variable name" }))
    .optional(),
});

export const McpStdioSchema = z.strictObject({
  /** Accepted so server entries written for other tools load as they are. */
  type: z.enum(["stdio", "local"]).optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  enabled: z.boolean().optional(),
  timeout_ms: positiveInt().optional(),
});

export const McpRemoteSchema = z.strictObject({
  type: z.enum(["http", "streamable-http", "sse", "remote"]).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().optional(),
  timeout_ms: positiveInt().optional(),
});

export const McpServerSchema = z.union([McpStdioSchema, McpRemoteSchema]);

/** An agent, from config or from a markdown file's frontmatter. */
export const AgentConfigSchema = z.strictObject({
  description: z.string().optional(),
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_turns: positiveInt().optional(),
  prompt: z.string().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  permission: PermissionSchema.optional(),
  mode: z.enum(["primary", "subagent", "all"]).optional(),
});

export const ConfigSchema = z.strictObject({
  /** Editors' schema hint; allowed and ignored. */
  $schema: z.string().optional(),
  provider: ProviderSchema.optional(),
  models: z.record(z.string(), ModelLimitsSchema).optional(),
  permission: PermissionSchema.optional(),
  sandbox: SandboxSchema.optional(),
  mcp: z.record(z.string(), McpServerSchema).optional(),
  agent: z.record(z.string(), AgentConfigSchema).optional(),
  subagents: z.strictObject({ maxDepth: z.int().min(0).optional() }).optional(),
  maxTurns: positiveInt().optional(),
});

export type PermissionAction = z.infer<typeof PermissionActionSchema>;
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
export type PermissionConfig = z.infer<typeof PermissionSchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type ModelLimits = z.infer<typeof ModelLimitsSchema>;
export type SandboxConfig = z.infer<typeof SandboxSchema>;
export type SandboxMode = NonNullable<SandboxConfig["mode"]>;
export type McpStdioConfig = z.infer<typeof McpStdioSchema>;
export type McpRemoteConfig = z.infer<typeof McpRemoteSchema>;
export type McpServerConfig = z.infer<typeof McpServerSchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type Config = z.infer<typeof ConfigSchema>;
