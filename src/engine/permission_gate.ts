/**
 * The session's permission judge, assembled from the session's settings:
 * the tool declares what the call would touch and the one judge
 * (src/permission/gate.ts) decides — the rule layers, the task's `owns`,
 * and whether commands may run with no OS sandbox — asking through the one
 * broker: a person, `--yes`, or the headless refusal. Here its questions
 * and verdicts become permission events.
 */
import type { GateCall, ToolCallGate } from "./loop/tool_call.ts";
import type { EventBodies, EventType } from "../contracts/events.ts";
import {
  type ApprovalBroker,
  type ApprovalRequest,
  HeadlessBroker,
  YesBroker,
} from "../permission/broker.ts";
import { PermissionGate, ruleVerdict } from "../permission/gate.ts";
import { flagsLayer } from "../permission/flags.ts";
import { buildLayers } from "../permission/layers.ts";
import type { RuleLayer } from "../permission/rules.ts";
import type { Access, Tool } from "../tools/tool.ts";
import { saveProjectRule } from "../permission/project_rules.ts";
import { HostWriteRefused } from "../sandbox/writer/host_write.ts";
import type { PermissionConfig } from "../permission/rules.ts";
import { type ReadVerdict, type ToolContext, ToolError } from "../tools/tool.ts";
import { withoutAllows } from "../config/project_allows.ts";
import type { EngineIO, EngineSpec } from "./types.ts";
import type { SandboxState } from "./launcher.ts";

type Emit = <K extends EventType>(type: K, body: EventBodies[K]) => void;

/** Whether a command may run with nobody asked; when not, why and the flags that would allow it. */
export type UnattendedCommand =
  | { allowed: true }
  | { allowed: false; reason: string; allowWith?: string[] };

/** The session's gate: the loop's, and the same rules for what runs after a turn. */
export interface SessionGate extends ToolCallGate {
  authorize(call: GateCall, access: Access): Promise<void>;
  /**
   * Would this call run with nobody to ask? Judged by the same rules, owns
   * and sandbox as a call of the model's, but asks no one and records
   * nothing: for commands the model chose that run after its turn (a done
   * criterion it proposed, src/engine/verify/done_criteria.ts).
   */
  unattended(
    call: { tool: Tool; input: unknown },
    ctx: ToolContext,
    options?: { byRule?: boolean },
  ): Promise<UnattendedCommand>;
}

function brokerFor(spec: EngineSpec, io: EngineIO): {
  broker: ApprovalBroker;
  source: "user" | "headless" | "yes";
} {
  if (spec.flags.yes) return { broker: new YesBroker(), source: "yes" };
  if (spec.interactive) return { broker: { ask: (request) => io.ask(request) }, source: "user" };
  return { broker: new HeadlessBroker(), source: "headless" };
}

/**
 * The session's gate: the judge built from the spec's rule layers, `owns`
 * and sandbox state, with its broker (a person through `io`, `--yes`, or
 * the headless refusal) and its questions and verdicts sent out as events.
 */
export function buildGate(
  spec: EngineSpec,
  io: EngineIO,
  emit: Emit,
  sandbox: SandboxState,
  agentPermission?: PermissionConfig,
  /** Told when a question goes to the user (the Notification hooks). */
  notify?: (message: string) => void,
): SessionGate {
  const layers = ruleLayers(spec, agentPermission);
  const { broker, source } = brokerFor(spec, io);
  // permission.asked goes out when the question is put, before the answer,
  // so a client sees asked → decided in the order they happened.
  const turns = new Map<string, number>();
  const announce = (request: ApprovalRequest, turn = turns.get(request.callId ?? "") ?? 0) =>
    emit("permission.asked", {
      turn,
      call_id: request.callId ?? "",
      tool: request.tool,
      key: request.access.key,
      patterns: request.access.patterns,
    });
  const gate = new PermissionGate({
    layers,
    workspace: spec.workspace,
    extraDirs: spec.sandbox.addDirs,
    mode: spec.sandbox.mode,
    protect: spec.sandbox.protect,
    broker: {
      ask: async (request) => {
        announce(request);
        notify?.(`skiff needs your permission to use ${request.tool}`);
        const answer = await broker.ask(request);
        // Not a refusal of this call: the person stopped the whole run.
        if (answer === "interrupt") throw interruptedAtPrompt(request, emit, turns);
        return answer;
      },
    },
    brokerSource: source,
    attended: spec.interactive,
    owns: { paths: spec.owns, commandsConfined: sandbox.name === "bwrap" },
    unsandboxed: {
      refusal: () => sandbox.approved ? undefined : sandbox.refusal,
      approve: () => {
        sandbox.approved = true;
      },
    },
    saveProjectRule: async (key, patterns) => {
      if (spec.ownRulesRoot !== undefined) {
        // Kept in the user's own config by the terminal side (host/start.ts), not the project's file.
        emit("warning", {
          message:
            `saved ${key}(${patterns.join(", ")}) → allow for ${spec.ownRulesRoot} in your ` +
            `own config (projects in ${spec.configDir}/config.json)`,
        });
        return null;
      }
      let saved;
      try {
        saved = await saveProjectRule(spec.workspace, key, patterns);
      } catch (error) {
        // A project config through a link out of the project: this session keeps the rule.
        if (!(error instanceof HostWriteRefused)) throw error;
        emit("warning", {
          message: `${key}(${patterns.join(", ")}) holds for this session only: ` +
            `${error.message} ${error.hint}`,
        });
        return null;
      }
      emit("warning", { message: `saved ${key}(${patterns.join(", ")}) → allow in ${saved.file}` });
      return saved;
    },
  });

  /**
   * One access of one call, judged: the call's declared access, or more
   * asked for by the running call (a redirect), on the same judge, broker
   * and events. Throws when refused.
   */
  const judge = async (
    { tool, input, callId, turn, hookApproved, typedByPerson }: GateCall,
    access: Access,
    followUp: boolean,
  ): Promise<void> => {
    turns.set(callId, turn);
    let result;
    try {
      result = await gate.check(tool.name, input, access, callId, {
        followUp,
        // Turn 0: no model turn asked for it (engine.runTool).
        notByModel: turn === 0,
        hookApproved: !followUp && hookApproved,
        // Only the call the person typed, as declared: not more asked for while it runs.
        typedByPerson: !followUp && typedByPerson === true && turn === 0,
        decided: (decision, source) =>
          emit("permission.decided", { turn, call_id: callId, tool: tool.name, decision, source }),
      });
    } finally {
      turns.delete(callId);
    }
    if (!result.allowed) throw result.error;
  };

  return {
    async check(call, ctx) {
      await judge(call, await call.tool.declare(call.input, ctx), false);
      return { allowed: true };
    },
    authorize: (call, access) => judge(call, access, true),
    denials: () => gate.denials(),
    async unattended({ tool, input }, ctx, options = {}) {
      const verdict = await gate.unattended(await tool.declare(input, ctx), options);
      if (verdict.allowed) return { allowed: true };
      return {
        allowed: false,
        reason: verdict.decision.reason,
        ...(verdict.allow.kind === "flags" ? { allowWith: verdict.allow.args } : {}),
      };
    },
  };
}

/** Ctrl-C at a call's question: the call did not run, and the run is stopping. */
function interruptedAtPrompt(
  request: ApprovalRequest,
  emit: Emit,
  turns: Map<string, number>,
): ToolError {
  const callId = request.callId ?? "";
  emit("permission.decided", {
    turn: turns.get(callId) ?? 0,
    call_id: callId,
    tool: request.tool,
    decision: "deny",
    source: "user",
  });
  return new ToolError(
    "failed",
    "Not run: the user interrupted the run at this call's approval prompt.",
  );
}

/**
 * defaults → Claude Code user settings → global → Claude Code project
 * settings → project → the parent chain's agents → this agent →
 * flags. A subagent's own rules may only tighten: its allows are dropped, so
 * a child never gets what its parents did not have.
 */
export function ruleLayers(spec: EngineSpec, agentPermission?: PermissionConfig): RuleLayer[] {
  const byLayer = (source: string) =>
    spec.permissionLayers.find((layer) => layer.source === source)?.permission as
      | PermissionConfig
      | undefined;
  return buildLayers({
    claudeUser: byLayer("claude-user"),
    global: byLayer("global"),
    claudeProject: byLayer("claude-project"),
    project: byLayer("project"),
    parentAgents: spec.inheritedPermission as PermissionConfig[],
    agent: agentPermission && (spec.depth > 0 ? withoutAllows(agentPermission) : agentPermission),
    flags: flagsLayer(spec.flags),
  });
}

/**
 * The read rules' verdict on one file, for search tools (grep leaves out
 * what is not "allow"). Only the `read` key of the rule table is asked —
 * the folder was approved with the search itself — and no one is asked.
 */
/**
 * The rule table's verdict on starting language server `name` (key `lsp`),
 * asked without asking anyone: only "allow" starts it.
 */
export function lspVerdictFor(
  spec: EngineSpec,
  agentPermission?: PermissionConfig,
): (name: string) => "allow" | "ask" | "deny" {
  let layers: RuleLayer[] | undefined;
  return (name) => {
    layers ??= ruleLayers(spec, agentPermission);
    return ruleVerdict(layers, "lsp", name).action;
  };
}

export function readVerdictFor(
  spec: EngineSpec,
  agentPermission?: PermissionConfig,
): (real: string, display: string) => ReadVerdict {
  // Built at the first verdict: every call gets this in its context, few search.
  let layers: RuleLayer[] | undefined;
  return (_real, display) => {
    layers ??= ruleLayers(spec, agentPermission);
    const check = ruleVerdict(layers, "read", display);
    return { action: check.action, reason: check.reason, pattern: check.rule?.pattern };
  };
}
