/**
 * What crosses the boundary between the terminal side of skiff and the
 * session engine. Plain data only: these objects are posted to and from the
 * engine's Worker.
 */
import type { SkiffEvent } from "../contracts/events.ts";
import type { EditorFiles } from "../contracts/editor_files.ts";
import type { ToolErrorPayload } from "../contracts/events.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../permission/broker.ts";
import type { RunOwner } from "../store/run_owner.ts";
import type { Config } from "../config/schema.ts";
import type { ModelDialectSettings } from "../provider/dialects/model_dialect.ts";
import type { ReasoningEffort } from "../provider/dialects/reasoning_effort.ts";
import type { SessionMcp } from "../mcp/sources.ts";
import type { LoadedAgents } from "../definitions/agents/types.ts";

import type { HookSpec } from "../hooks/types.ts";
import type { VerifyCheck } from "./verify/verify.ts";
export type { ApprovalAnswer, ApprovalRequest };

/** Everything the engine needs to build a session; serialisable. */
export interface EngineSpec {
  workspace: string;
  dataDir: string;
  configDir: string;
  /** Permission layers in order (defaults are added by the policy). */
  permissionLayers: { source: string; path?: string; permission: Record<string, unknown> }[];
  model: string;
  agent: string;
  /** 0 for a session a person started; a subagent is its parent's depth + 1. */
  depth: number;
  /** Permission sections of the parent chain's agents: a child never gets more. */
  inheritedPermission: Record<string, unknown>[];
  /**
   * The `tools` switches of the parent chain's agents: a child never holds a
   * tool (an MCP server's included) one of its parents switched off.
   */
  inheritedTools?: Record<string, boolean>[];
  /** Workspace paths (absolute) a subagent alone may write; empty: no narrowing. */
  owns: string[];
  mcp: SessionMcp;
  /** False: the project is not trusted, so allow rules in its agent files are dropped. */
  projectTrusted?: boolean;
  /**
   * Set when the project is not trusted: the folder an "always, here" answer
   * is kept for in the user's own config (`projects`), by the terminal side
   * (host/start.ts), instead of in the project's file.
   */
  ownRulesRoot?: string;
  /**
   * The config's `agent` entries, which `resolvedAgents` was resolved from;
   * agents are loaded from them where a spec has no `resolvedAgents`.
   */
  configAgents?: Config["agent"];
  /**
   * Every agent the session (and its subagents) may run, resolved once by the
   * host in `prepare()` (the project-trust rules applied): the Worker's
   * permissions and the session's parts both use it, and no agent file is
   * read in the Worker. A spec made without `prepare()` (a test's) has none;
   * the agents are then loaded where they are needed.
   */
  resolvedAgents?: LoadedAgents;
  parentId?: string;
  /** The run that holds the sessions this engine creates (src/store/session_locks.ts). */
  run?: RunOwner;
  title?: string;
  sandbox: SessionSandbox;
  flags: { allow: string[]; ask: string[]; deny: string[]; yes: boolean };
  /**
   * The session's hooks, read and judged by the host (src/hooks/sources.ts):
   * a project's only when it is trusted. A subagent runs none of its own.
   */
  hooks?: HookSpec[];
  /** Found while preparing (ignored project settings…); shown as warning events. */
  warnings: string[];
  /** A person can answer approval prompts. */
  interactive: boolean;
  provider: {
    baseURL: string;
    apiKey: string;
    requestTimeoutMs?: number;
    maxRetries?: number;
    connectTimeoutMs?: number;
    /** The wire protocol, for all models and by model id (src/provider/create_provider.ts). */
    wire?: "chat" | "responses" | "auto";
    modelWires?: Record<string, "chat" | "responses">;
    /** Text tool calls, tool-schema dialect and reasoning effort by model id or pattern (src/provider/dialects/model_dialect.ts). */
    modelDialects?: Record<string, ModelDialectSettings>;
    /** `provider.reasoningEffort`: every model's unless its entry says (src/provider/dialects/reasoning_effort.ts). */
    reasoningEffort?: ReasoningEffort;
    /** `--reasoning-effort`: this run's, over the config's and each model's own. */
    reasoningEffortFlag?: ReasoningEffort;
    auth?: "bearer" | "api-key";
    apiVersion?: string;
    /** Extra headers on every model request; like the key, never written to events or the store. */
    headers?: Record<string, string>;
    /** The server's history rules (src/provider/dialects/dialect.ts). */
    dialect?: "auto" | "standard" | "mistral" | "deepseek" | "openrouter";
  };
  settings: EngineSettings;
}

/**
 * How the session's commands are contained, decided once by the host
 * (src/host/setup.ts) from the config, the flags and the trust decision.
 */
export interface SessionSandbox {
  mode: "read-only" | "workspace-write" | "full-access";
  /** Which OS sandbox runs commands on Linux. @default "auto" */
  backend?: "auto" | "bwrap" | "landlock";
  network: boolean;
  addDirs: string[];
  env: string[];
  /** Workspace patterns commands may not change (the command guard, src/sandbox/guard/). */
  protect?: string[];
  /** Absolute paths hidden from commands and the file tools (src/sandbox/hidden.ts). */
  hidden?: string[];
  /** The hidden paths that exist, for the OS sandbox to mount over. */
  hiddenMounts?: { path: string; folder: boolean; view?: string; gitCredential?: boolean }[];
  limits?: { tmpMB: number; processes: number };
  /** Set by the host, which can read /proc (src/sandbox/landlock/probe_key.ts). */
  landlockProbeKey?: string;
}

/** The engine's own switches from the config (docs/config.md), read once by the host. */
export interface EngineSettings {
  /** Context window, output limit and price per model name (config `models`). */
  models?: Config["models"];
  /** Harness memory in the prompt and the tools; false is `--no-memory`. @default true */
  memory?: boolean;
  compaction?: Config["compaction"];
  undo?: Config["undo"];
  /** How long and how much spilled tool output is kept. */
  toolOutput?: Config["toolOutput"];
  /** How deep subagents may nest (config `subagents.maxDepth`). */
  maxSubagentDepth?: number;
  /** Language servers for diagnostics after edits (config `lsp`; src/lsp/). */
  lsp?: Config["lsp"];
  /** The chat's wait for the person before the `idle_prompt` notification (config `idleNotificationSeconds`). */
  idleNotificationSeconds?: number;
}

/** How a prompt's run ended; the CLI alone maps these to exit codes (docs/cli.md). */
export type OutcomeKind = "completed" | "denied" | "limit" | "interrupted" | "provider" | "failed";

export interface RunRequest {
  prompt: string;
  /**
   * The session's title if it has none yet: what the person typed, when the
   * prompt carries more (the chat's `!command` output sent with it).
   * @default the prompt's first line
   */
  title?: string;
  /**
   * The exit code of each outcome, handed in by the front end (the CLI's
   * table, src/cli/exit_codes.ts): events `error` and `session.completed`
   * carry it (docs/events.md).
   */
  exitCodes: Readonly<Record<OutcomeKind, number>>;
  /** No limit when absent. */
  maxTurns?: number;
  /** US dollars this prompt (its subagents included) may spend; no limit when absent. */
  maxCostUsd?: number;
  /** Tokens in + out this prompt (its subagents included) may spend; no limit when absent. */
  maxTokens?: number;
  /** Epoch ms. */
  deadline?: number;
  /**
   * The gate the run must pass (`--until`, `--done`; src/engine/verify/verify.ts): a
   * command, or criteria. None: the agent's word ends the run.
   */
  until?: string | VerifyCheck[];
  /** Attempts the agent gets at the gate, its first included. @default 3 */
  maxCycles?: number;
}

/** The engine's only ways out. */
export interface EngineIO {
  event(event: SkiffEvent): void;
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /**
   * The editor skiff runs inside, when it offers its buffers (`skiff acp`):
   * the file tools read and write text through it, after the same judging.
   */
  editor?: EditorFiles;
}

/** How a tool call without a model is run (`EngineHandle.runTool`). */
export interface ToolCallOptions {
  /** After every earlier call that asked the same, in the order they came. */
  inOrder?: boolean;
  /**
   * A name the caller gives this call, unique among its calls in flight, so
   * `EngineHandle.cancelTool` can stop it alone (an MCP client's
   * `notifications/cancelled`).
   */
  cancelId?: string;
  /**
   * The person typed this call themselves (the chat's `!command`): where a
   * rule would only ask, it runs without the question; a deny rule, a hook's
   * block and the sandbox still hold. Only the chat sets it for what the
   * person typed: never a model's call, a command file's lines, a script
   * (`skiff tool`) or an MCP client.
   */
  typedByPerson?: boolean;
}

export interface ToolCallResult {
  tool: string;
  ok: boolean;
  output: string;
  error?: ToolErrorPayload;
  metadata: Record<string, unknown>;
}
