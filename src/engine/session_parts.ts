/**
 * Builds the pieces one session runs with — the agent, its tools (built-in,
 * skill, task, MCP), the permission gate, the process launcher, the tool
 * context — from an EngineSpec. Kept apart from the engine so the wiring can
 * be read in one place.
 */
import type { McpServerStatus } from "../mcp/manager.ts";
import type { ToolSchema } from "../provider/types.ts";
import type { EventBodies, EventType } from "../contracts/events.ts";
import type { FileLedger } from "../tools/files/mod.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";
import type { Session, Store } from "../store/store.ts";
import { builtinTools, parseToolInput, toolSchemas } from "../tools/registry.ts";
import { truncateOutput } from "../tools/truncate.ts";
import { BackgroundProcesses } from "../tools/process/mod.ts";
import {
  createDoneProposeTool,
  createHarnessTools,
  createSkillTool,
  createTaskTool,
  type DoneProposal,
  type SubagentRunner,
} from "../tools/session/mod.ts";
import { loadAgentsAsync } from "../definitions/agents/load.ts";
import { DEFAULT_MAX_DEPTH, filterTools, subagentsOf } from "../definitions/agents/filter_tools.ts";
import type { AgentDefinition } from "../definitions/agents/types.ts";
import { loadSkillsAsync } from "../definitions/skills.ts";
import { UsageError } from "../contracts/usage_error.ts";
import { pickMaxOutputTokens, resolveModelLimits } from "../provider/model_limits.ts";
import type { EngineIO, EngineSpec } from "./types.ts";
import { buildGate, lspVerdictFor, readVerdictFor, type SessionGate } from "./permission_gate.ts";
import type { LanguageServers } from "../lsp/types.ts";
import { chooseSessionLauncher, landlockProbeCacheOf } from "./launcher.ts";
import { type AvailableSandboxes, probeSandboxesFor } from "../sandbox/choose.ts";
import { hiddenAround } from "../sandbox/hidden.ts";
import { type CommandChange, CommandSnapshots } from "../undo/command_snapshots.ts";
import { gitSummary } from "./loop/git_summary.ts";
import { toolsForWindow } from "./context/small_window.ts";
import { acceptUnsandboxed } from "../sandbox/choose.ts";
import { SessionHooks } from "../hooks/session_hooks.ts";
import { toolCallHooks } from "../hooks/tool_hooks.ts";
import { notificationHooks } from "../hooks/session_events.ts";
import type { ToolCallHooks } from "./loop/tool_call.ts";
import { sandboxSettings } from "./launcher.ts";

export interface SessionParts {
  agent: AgentDefinition;
  tools: Tool[];
  /**
   * The MCP tools this session's agent holds, lent to its subagents: a child
   * never gets one its parent's agent switched off.
   */
  mcpTools: Tool[];
  /** Its MCP servers and their state (the chat's /mcp); absent without MCP. */
  mcpStatus?: () => McpServerStatus[];
  /** Contains skiff's own helper commands (git status); undefined: run none. */
  helperCommands?: (
    command: string,
    cwd: string,
  ) => Promise<{ argv: string[]; env: Record<string, string> }>;
  /**
   * The git summary of the system prompt, begun as soon as its contained
   * launcher existed, when a prompt follows the opening at once
   * (`PartsInput.promptNext`); it runs while the rest of the session opens.
   */
  openingGitSummary?: Promise<string | null>;
  schemas: ToolSchema[];
  gate: SessionGate;
  /** The session's hooks (docs/hooks.md); with none set, every event runs nothing. */
  hooks: SessionHooks;
  /** Its PreToolUse and PostToolUse hooks, for the call path; absent when there are none. */
  toolHooks?: ToolCallHooks;
  warnings: string[];
  /** What the plan agent proposed with done_propose (src/engine/verify/done_criteria.ts); absent for others. */
  doneProposals?: DoneProposal[];
  /** The agent's own system prompt, replacing the base one when set. */
  agentPrompt?: string;
  maxOutputTokens?: number;
  temperature?: number;
  context(callId: string, signal: AbortSignal): ToolContext;
  parseInput(tool: Tool, raw: string): unknown;
  truncate(output: string, callId: string): Promise<string>;
  close(): Promise<void>;
}

export interface PartsInput {
  spec: EngineSpec;
  store: Store;
  session: Session;
  ledger: FileLedger;
  io: EngineIO;
  emit<K extends EventType>(type: K, body: EventBodies[K]): void;
  /** Runs child sessions for the task tool. */
  subagents: SubagentRunner;
  /** MCP tools lent by a parent session. */
  sharedTools: Tool[];
  /** Files what a command changed as undo snapshots of the prompt running now. */
  recordCommandChanges(changes: CommandChange[]): void;
  /** Files a command about to run in the undo journal (`CommandSnapshotOptions.journal`). */
  journalCommand?(tree: string): () => void;
  /** The sandbox probe `startSandboxProbe` began for this session; absent: probe now. */
  sandboxes?: Promise<AvailableSandboxes>;
  /** A prompt is sent right after the opening: its git summary starts here. @default false */
  promptNext?: boolean;
}

/**
 * Starts the probe of which sandboxes work here (a short bubblewrap run, or
 * the Landlock step), the one `buildSessionParts` would run, so that it goes
 * on beside the store's opening and the session's (engine/handle.ts). Undefined in
 * full-access mode, which probes nothing.
 */
export function startSandboxProbe(spec: EngineSpec): Promise<AvailableSandboxes> | undefined {
  if (spec.sandbox.mode === "full-access") return undefined;
  return probeSandboxesFor(spec.sandbox.backend ?? "auto", landlockProbeCacheOf(spec));
}

/** Snapshots around commands for undo, unless commands cannot write or config says no. */
function commandUndoFor(input: PartsInput): CommandSnapshots | undefined {
  const { spec } = input;
  const undo = spec.settings.undo;
  if (spec.sandbox.mode === "read-only" || undo?.commands === false) return undefined;
  return new CommandSnapshots({
    workspace: spec.workspace,
    dataDir: spec.dataDir,
    sessionId: input.session.id,
    maxBytes: undo?.maxSnapshotMB === undefined ? undefined : undo.maxSnapshotMB * 1024 * 1024,
    record: input.recordCommandChanges,
    journal: input.journalCommand,
    warn: (message) => input.emit("warning", { message }),
  });
}

/**
 * The session's language servers for the diagnostics after an edit, loaded
 * at the first changed file (src/lsp/), run contained like skiff's helper
 * commands (read-only workspace); undefined when config switches them off.
 */
function sessionDiagnostics(
  spec: EngineSpec,
  helperCommands: SessionParts["helperCommands"],
  verdict: (name: string) => "allow" | "ask" | "deny",
): (LanguageServers & { close(): Promise<void> }) | undefined {
  const lsp = spec.settings.lsp;
  if (lsp?.enabled === false) return undefined;
  let servers: Promise<import("../lsp/diagnostics.ts").SessionDiagnostics> | undefined;
  const load = () =>
    servers ??= import("../lsp/diagnostics.ts").then(({ SessionDiagnostics }) =>
      new SessionDiagnostics({
        workspace: spec.workspace,
        prepare: helperCommands,
        verdict,
        servers: lsp?.servers,
        firstWaitMs: lsp?.firstWaitMs,
        waitMs: lsp?.waitMs,
      })
    );
  return {
    diagnose: async (files, signal) => await (await load()).diagnose(files, signal),
    // `skiff tool` reads without editing as often as not: no server starts for a read there.
    opened: spec.agent === "tool"
      ? () => {}
      : (real, text) => void load().then((loaded) => loaded.opened(real, text), () => {}),
    // A module that failed to load started no server.
    close: async () => await (await servers?.catch(() => undefined))?.close(),
  };
}

/** The agent this session runs as; `tool` (skiff tool) uses build's tool set. */
export function pickAgent(agents: AgentDefinition[], name: string, depth: number): AgentDefinition {
  const wanted = name === "tool" ? "build" : name;
  const agent = agents.find((candidate) => candidate.name === wanted);
  if (!agent) {
    throw new UsageError(
      `no agent named "${name}". Available: ${
        agents.map((a) => a.name).join(", ")
      } (see: skiff agents list).`,
    );
  }
  if (depth === 0 && agent.mode === "subagent") {
    throw new UsageError(
      `"${name}" is a subagent: it runs through the task tool, not with --agent. Pick a primary agent (skiff agents list).`,
    );
  }
  return agent;
}

export async function buildSessionParts(input: PartsInput): Promise<SessionParts> {
  const { spec, store, session, ledger } = input;
  const warnings: string[] = [];
  const loadedAgents = spec.resolvedAgents ?? await loadAgentsAsync({
    workspace: spec.workspace,
    configDir: spec.configDir,
    configAgents: spec.configAgents,
    untrustedProject: spec.projectTrusted === false,
  });
  if (spec.depth === 0) warnings.push(...loadedAgents.warnings);
  const agent = pickAgent(loadedAgents.agents, spec.agent, spec.depth);
  const maxDepth = spec.settings.maxSubagentDepth ?? DEFAULT_MAX_DEPTH;

  const started = input.sandboxes;
  const { launcher, state: sandboxState } = await chooseSessionLauncher(
    spec,
    warnings,
    started ? () => started : undefined,
  );
  const readOnly = sandboxState.readOnly;
  const helperCommands: SessionParts["helperCommands"] = readOnly
    ? (command, cwd) => readOnly.prepare(command, cwd)
    : undefined;
  // git runs (contained) while the tools, skills, MCP servers and gate are set up.
  const openingGitSummary = input.promptNext
    ? gitSummary(spec.workspace, helperCommands)
    : undefined;
  const commandUndo = commandUndoFor(input);
  const diagnostics = sessionDiagnostics(
    spec,
    helperCommands,
    lspVerdictFor(spec, agent.permission),
  );
  const background = new BackgroundProcesses(launcher, { commandUndo });

  const candidates: Tool[] = [...builtinTools()];
  // The YAML parser is loaded only when a SKILL.md has frontmatter (docs/performance.md).
  const skills = await loadSkillsAsync({ workspace: spec.workspace, configDir: spec.configDir });
  if (spec.depth === 0) warnings.push(...skills.warnings);
  if (skills.skills.length) candidates.push(createSkillTool(skills.skills));
  const subagents = subagentsOf(loadedAgents.agents);
  if (subagents.length) candidates.push(createTaskTool(input.subagents, subagents));
  if (spec.settings.memory !== false) {
    candidates.push(...createHarnessTools(store.memory, spec.workspace, session.id));
  }
  // Only the plan agent may define done; the agent being judged may not.
  const doneProposals: DoneProposal[] | undefined = agent.name === "plan" ? [] : undefined;
  if (doneProposals) {
    candidates.push(
      createDoneProposeTool((criteria) => doneProposals.splice(0, Infinity, ...criteria)),
    );
  }

  let closeMcp = () => Promise.resolve();
  let mcpTools: Tool[] = input.sharedTools;
  let mcpStatus: (() => McpServerStatus[]) | undefined;
  if (spec.mcp.enabled) {
    const { startMcp } = await import("./mcp_start.ts");
    const mcp = await startMcp(spec);
    warnings.push(...mcp.warnings);
    mcpTools = mcp.tools;
    closeMcp = mcp.close;
    mcpStatus = () => mcp.manager.status();
  }
  candidates.push(...mcpTools);

  const stopHooks = new AbortController();
  const hooks = new SessionHooks({
    hooks: spec.hooks ?? [],
    launcher,
    userLauncher: () => acceptUnsandboxed(sandboxSettings(spec)),
    workspace: spec.workspace,
    sessionId: session.id,
    report: (body) => input.emit("hook.completed", body),
    signal: stopHooks.signal,
  });
  let tools: Tool[];
  let gate: SessionGate;
  try {
    const allowed = new Set(
      filterTools(
        agent,
        candidates.map((tool) => tool.name),
        spec.depth,
        maxDepth,
        spec.inheritedTools,
      ),
    );
    tools = candidates.filter((tool) => allowed.has(tool.name));
    gate = buildGate(
      spec,
      input.io,
      input.emit,
      sandboxState,
      agent.permission,
      spec.interactive
        ? (message) => void notificationHooks(hooks, message, "permission_prompt")
        : undefined,
    );
  } catch (error) {
    // Nobody else holds the servers yet: stop them before giving up.
    await closeMcp();
    throw error;
  }
  // The host put the agent's model in the spec already (a subagent's, and the top-level one's below --model).
  const model = spec.model;

  let schemas: ToolSchema[] | undefined;
  const modelLimits = resolveModelLimits(model, spec.settings.models);
  // Once per session, not per call: the workspace and extra folders are resolved already.
  const hidden = hiddenAround(spec.sandbox.hidden ?? [], [spec.workspace, ...spec.sandbox.addDirs]);
  return {
    agent,
    tools,
    mcpTools: mcpTools.filter((tool) => tools.includes(tool)),
    mcpStatus,
    helperCommands,
    openingGitSummary,
    // Built at the first model request (one array, kept): `skiff tool` never needs them.
    get schemas() {
      // A small window is offered the core tools only (context/small_window.ts).
      return schemas ??= toolSchemas(toolsForWindow(tools, modelLimits.context));
    },
    gate,
    hooks,
    toolHooks: toolCallHooks(hooks),
    warnings,
    agentPrompt: agent.prompt,
    doneProposals,
    maxOutputTokens: pickMaxOutputTokens(modelLimits),
    temperature: agent.temperature,
    context: (callId, signal) => ({
      sessionId: session.id,
      callId,
      workspace: spec.workspace,
      extraDirs: spec.sandbox.addDirs,
      dataDir: spec.dataDir,
      readVerdict: readVerdictFor(spec, agent.permission),
      hidden,
      signal,
      files: ledger,
      todos: {
        get: () => store.getTodos(session.id),
        set: (todos) => store.setTodos(session.id, todos),
      },
      launcher,
      background,
      diagnostics,
      editor: input.io.editor,
      commandUndo,
      fetch: globalThis.fetch,
    }),
    parseInput: parseToolInput,
    truncate: (output, callId) =>
      truncateOutput(output, { callId, sessionId: session.id, dataDir: spec.dataDir }),
    close: async () => {
      stopHooks.abort();
      try {
        await background.stopAll();
      } finally {
        // A first undo snapshot warmed for a call that never ran (denied) may still be taken.
        await commandUndo?.settled();
        await diagnostics?.close();
        await closeMcp();
        await sandboxState.close?.();
      }
    },
  };
}
