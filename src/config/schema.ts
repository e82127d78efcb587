/**
 * The shape of a skiff config file, as zod schemas. Every object is strict:
 * a misspelt key is an error the user sees, never a setting silently ignored.
 * The types other modules use are inferred from here, so they import types
 * only (`import type`) and never load zod themselves.
 */
import * as z from "zod";
import { codePathProblem } from "../sandbox/code_paths.ts";
import { permissionKeyProblem } from "./permission_keys.ts";
import { REASONING_EFFORTS } from "../contracts/reasoning_effort.ts";
import { API_KEY_TEXT, apiKeyProblem } from "./api_key_text.ts";

const positiveInt = () => z.int().positive();

export const PermissionActionSchema = z.enum(["allow", "ask", "deny"]);

/** One action for the whole key, or wildcard pattern → action. */
export const PermissionRuleSchema = z.union([
  PermissionActionSchema,
  z.record(z.string(), PermissionActionSchema),
]);

/** Permission key (bash, read, edit, an MCP tool name, `github_*`…) → rule. */
export const PermissionSchema = z.record(z.string(), PermissionRuleSchema).superRefine(
  (permission, ctx) => {
    for (const key of Object.keys(permission)) {
      const problem = permissionKeyProblem(key);
      if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
    }
  },
);

/** The wire protocol a model is spoken to in (docs/models.md). */
export const WireSchema = z.enum(["chat", "responses"]);

/** How hard a reasoning model thinks (docs/models.md#reasoning-effort); the values vendors document. */
export const ReasoningEffortSchema = z.enum(REASONING_EFFORTS);

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const ProviderSchema = z.strictObject({
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).check((context) => {
    if (!API_KEY_TEXT.test(context.value)) {
      context.issues.push({
        code: "custom",
        message: apiKeyProblem(context.value),
        input: context.value,
      });
    }
  }).optional(),
  model: z.string().min(1).optional(),
  requestTimeoutMs: positiveInt().optional(),
  maxRetries: z.int().min(0).max(100).optional(),
  connectTimeoutMs: positiveInt().optional(),
  /**
   * Chat Completions, the Responses API, or "auto": Chat Completions,
   * switching to the Responses API for a model the server serves only there.
   */
  wire: z.union([WireSchema, z.literal("auto")]).optional(),
  /** Settings of particular models at this provider, by id or pattern (`*` matches any text). */
  models: z.record(
    z.string().min(1),
    z.strictObject({
      wire: WireSchema.optional(),
      /**
       * Tool calls the model writes as text (src/provider/dialects/text_tool_calls.ts):
       * read in any known format, in one, or never. @default the family's, else "auto"
       */
      textToolCalls: z.enum(["off", "auto", "hermes", "mistral", "llama3", "deepseek"]).optional(),
      /** The tool-schema dialect sent (src/provider/dialects/schema_dialect.ts). @default by the endpoint's host */
      toolSchemas: z.enum(["openai", "gemini"]).optional(),
      /** This model's reasoning effort, over `provider.reasoningEffort`. */
      reasoningEffort: ReasoningEffortSchema.optional(),
    }),
  ).optional(),
  /**
   * How hard reasoning models think (src/provider/dialects/reasoning_effort.ts),
   * unless a model's entry says; unset: nothing is sent, the server's default holds.
   */
  reasoningEffort: ReasoningEffortSchema.optional(),
  /** How the key is sent: a bearer token, or Azure OpenAI's `api-key` header. */
  auth: z.enum(["bearer", "api-key"]).optional(),
  /** Azure OpenAI's `api-version` query parameter. */
  apiVersion: z.string().min(1).optional(),
  /** Extra headers on every model request. */
  headers: z.record(
    z.string().regex(HEADER_NAME, { error: "expected an HTTP header name" }),
    z.string().refine((value) => !/[\r\n\0]/.test(value), {
      error: "a header value has no line breaks",
    }),
  ).optional(),
  /** The server's history rules (docs/models.md): "auto" tells them by the base URL's host. */
  dialect: z.enum(["auto", "standard", "mistral", "deepseek", "openrouter"]).optional(),
});

/** US dollars per million tokens (docs/config.md). */
export const ModelCostSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
});

export const ModelLimitsSchema = z.strictObject({
  context: positiveInt().optional(),
  output: positiveInt().optional(),
  cost: ModelCostSchema.optional(),
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const SandboxSchema = z.strictObject({
  mode: z.enum(["read-only", "workspace-write", "full-access"]).optional(),
  /** Which OS sandbox runs commands on Linux (docs/security.md). @default "auto" */
  backend: z.enum(["auto", "bwrap", "landlock"]).optional(),
  network: z.boolean().optional(),
  addDirs: z.array(z.string().min(1)).optional(),
  env: z.array(z.string().regex(ENV_NAME, { error: "expected an environment variable name" }))
    .optional(),
  /**
   * More files that run code later (src/sandbox/code_paths.ts): file tools
   * ask before writing them, a command's change to them is reverted.
   */
  protect: z.array(z.string().min(1)).superRefine((patterns, ctx) => {
    patterns.forEach((pattern, index) => {
      const problem = codePathProblem(pattern);
      if (problem) ctx.addIssue({ code: "custom", path: [index], message: problem });
    });
  }).optional(),
  /** Path → true (hide from commands and file tools too) or false (show a default again). */
  hidden: z.record(z.string().min(1), z.boolean()).optional(),
  /**
   * Run the user's own hooks (global config, ~/.claude/settings.json) with
   * the user's rights instead of in the command sandbox. Read from the
   * global config only (docs/hooks.md). @default false
   */
  unsandboxedHooks: z.boolean().optional(),
  limits: z.strictObject({
    /** MiB for the private /tmp and /dev/shm. */
    tmpMB: positiveInt().optional(),
    /** Processes one command may run at once. */
    processes: z.int().min(16).optional(),
  }).optional(),
});

const STDIO_TYPES = ["stdio", "local"];

/**
 * An MCP server: started with `command` (stdio) or reached at `url`
 * (streamable HTTP, or SSE). An entry with neither only changes settings of a
 * server defined in an earlier layer or in the project's `.mcp.json`
 * (`{"enabled": false}`). One object rather than a union, so a typo gets a
 * message about the key, not about which form was meant.
 */
export const McpServerSchema = z.strictObject({
  /** Accepted so entries written for other tools load as they are. */
  type: z.enum([...STDIO_TYPES, "http", "streamable-http", "sse", "remote"]).optional(),
  /** The program, or the program and its first arguments as a list. */
  command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Another name for `env` that some files use. */
  environment: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().optional(),
  /** The opposite of `enabled`, as some other tools write it. */
  disabled: z.boolean().optional(),
  /** Per tool call. */
  timeout_ms: positiveInt().optional(),
  /** Start and handshake. */
  connect_timeout_ms: positiveInt().optional(),
  /** Start a stdio server under the OS sandbox, like bash (docs/mcp.md). */
  sandbox: z.boolean().optional(),
  /** A sandboxed server's network access. @default false */
  network: z.boolean().optional(),
}).superRefine((server, ctx) => {
  const problem = (key: string, message: string) =>
    ctx.addIssue({ code: "custom", path: [key], message });
  if (server.command !== undefined && server.url !== undefined) {
    problem("url", 'give either "command" (start a local server) or "url" (reach one), not both');
  }
  const stdio = server.command !== undefined ||
    (server.type !== undefined && STDIO_TYPES.includes(server.type));
  for (const key of ["args", "env", "environment", "cwd", "sandbox", "network"] as const) {
    if (server[key] !== undefined && server.url !== undefined) {
      problem(key, `only applies to a server started with "command", not one reached by "url"`);
    }
  }
  if (server.network !== undefined && server.sandbox !== true) {
    problem("network", 'only applies to a server started with "sandbox": true');
  }
  if (server.headers !== undefined && stdio) {
    problem("headers", `only applies to a server reached by "url"`);
  }
  if (server.type !== undefined && server.url !== undefined && STDIO_TYPES.includes(server.type)) {
    problem(
      "type",
      `"${server.type}" is for a server started with "command"; this entry has "url"`,
    );
  }
  if (
    server.type !== undefined && server.command !== undefined && !STDIO_TYPES.includes(server.type)
  ) {
    problem("type", `"${server.type}" is for a server reached by "url"; this entry has "command"`);
  }
});

/**
 * One hook command, in Claude Code's shape. Loose: fields Claude Code added
 * later are passed over, not errors, so a settings file copied in still loads.
 */
export const HookCommandSchema = z.looseObject({
  type: z.string().min(1),
  command: z.string().optional(),
  /** Seconds before the command is stopped. @default 60 */
  timeout: z.number().positive().max(3600).optional(),
});

/** Hooks by event name: each a list of tool matchers with their commands (docs/hooks.md). */
export const HooksSchema = z.record(
  z.string().min(1),
  z.array(z.looseObject({
    /** A tool name, `A|B`, or a pattern matched against the whole name; empty or `*`: every tool. */
    matcher: z.string().optional(),
    hooks: z.array(HookCommandSchema),
  })),
);

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

/** A language server the config names, beside the known ones (docs/config.md, `lsp`). */
const LspServerSchema = z.strictObject({
  /** Program and arguments; it speaks LSP over stdin and stdout. A new server needs it. */
  command: z.array(z.string().min(1)).min(1).optional(),
  /** File name endings it checks, with the dot: [".ts", ".tsx"]. A new server needs them. */
  extensions: z.array(z.string().regex(/^\./, "an extension starts with a dot")).min(1).optional(),
  /** The LSP language id sent with each file. @default the extension without its dot */
  languageId: z.string().optional(),
  /** Sent as `initializationOptions` in `initialize`. */
  initializationOptions: z.unknown().optional(),
  /** false switches a known server off. */
  enabled: z.boolean().optional(),
});

/** Diagnostics from language servers after file edits (docs/config.md, `lsp`). */
const LspSchema = z.strictObject({
  /** false: no language server is started. @default true */
  enabled: z.boolean().optional(),
  /** Milliseconds an edit waits for a server's first file, its start included. @default 1500 */
  firstWaitMs: positiveInt().optional(),
  /** Milliseconds an edit waits for a running server. @default 700 */
  waitMs: positiveInt().optional(),
  /** Servers by name; a known name (typescript, python, go, rust) changes that one. */
  servers: z.record(z.string(), LspServerSchema).optional(),
});

export type LspConfig = z.infer<typeof LspSchema>;

export const ConfigSchema = z.strictObject({
  /** Editors' schema hint; allowed and ignored. */
  $schema: z.string().optional(),
  provider: ProviderSchema.optional(),
  models: z.record(z.string(), ModelLimitsSchema).optional(),
  permission: PermissionSchema.optional(),
  sandbox: SandboxSchema.optional(),
  mcp: z.record(z.string(), McpServerSchema).optional(),
  lsp: LspSchema.optional(),
  agent: z.record(z.string(), AgentConfigSchema).optional(),
  /** Commands run at points of a session, in Claude Code's shape (docs/hooks.md). */
  hooks: HooksSchema.optional(),
  /**
   * Seconds the chat's input may wait untouched after an answer before the
   * Notification hooks hear `idle_prompt` (docs/hooks.md). @default 60
   */
  idleNotificationSeconds: positiveInt().optional(),
  subagents: z.strictObject({ maxDepth: z.int().min(0).optional() }).optional(),
  maxTurns: positiveInt().optional(),
  /** Seconds a `skiff run` may take; `--max-time` overrides. */
  maxTime: positiveInt().optional(),
  /** US dollars a `skiff run` may spend; `--max-cost` overrides. */
  maxCost: z.number().positive().optional(),
  /** Tokens (in + out) a `skiff run` may spend; `--max-tokens` overrides. */
  maxTokens: positiveInt().optional(),
  /** Spilled tool output in the data folder: pruned by age and total size (docs/config.md). */
  toolOutput: z.strictObject({
    maxAgeDays: z.number().positive().optional(),
    maxMB: z.number().positive().optional(),
  }).optional(),
  /**
   * Context management (docs/context.md): compact automatically over
   * `threshold` of the model's window; `auto: false` ends a run whose
   * conversation no longer fits (exit 5) instead.
   */
  compaction: z.strictObject({
    auto: z.boolean().optional(),
    threshold: z.number().min(0.1).max(0.95).optional(),
  }).optional(),
  /** What `skiff undo` covers beyond the file tools (docs/config.md). */
  undo: z.strictObject({
    commands: z.boolean().optional(),
    maxSnapshotMB: z.number().positive().optional(),
  }).optional(),
  /** Harness memory (docs/memory.md): `enabled: false` is `--no-memory` always. */
  memory: z.strictObject({ enabled: z.boolean().optional() }).optional(),
  /**
   * Project folders (real paths) whose own allow rules apply. Read from the
   * global config only: a project cannot vouch for itself.
   */
  trustedProjects: z.array(z.string().min(1)).optional(),
  /**
   * Rules you keep for one project (by its real path), in your own config:
   * an "always, here" answer in a project you have not trusted lands here,
   * so it holds next time without trusting the project's own files. Read
   * from the global config only.
   */
  projects: z.record(z.string().min(1), z.strictObject({ permission: PermissionSchema.optional() }))
    .optional(),
});

export type PermissionAction = z.infer<typeof PermissionActionSchema>;
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
export type PermissionConfig = z.infer<typeof PermissionSchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type ModelLimits = z.infer<typeof ModelLimitsSchema>;
export type SandboxConfig = z.infer<typeof SandboxSchema>;
export type SandboxMode = NonNullable<SandboxConfig["mode"]>;
export type McpServerConfig = z.infer<typeof McpServerSchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type HooksConfig = z.infer<typeof HooksSchema>;
export type Config = z.infer<typeof ConfigSchema>;
