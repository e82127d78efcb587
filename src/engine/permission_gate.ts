/**
 * The loop's permission gate, assembled: the tool declares what the call
 * would touch, the policy table judges it (defaults → global → project →
 * agent → flags → this session's "always" answers), and an ask goes to the
 * broker — a person, `--yes`, or the headless refusal. Decisions become
 * permission events. When no OS sandbox exists, commands need an explicit
 * yes to run unsandboxed; a headless run refuses them.
 */
import type { ToolCallGate } from "./loop/tool_call.ts";
import type { Denial, EventBodies, EventType } from "../contracts/events.ts";
import {
  type ApprovalBroker,
  type ApprovalRequest,
  approves,
  denialReason,
  HeadlessBroker,
  YesBroker,
} from "../permission/broker.ts";
import { PermissionGate } from "../permission/gate.ts";
import { flagsLayer } from "../permission/flags.ts";
import { buildLayers } from "../permission/layers.ts";
import type { RuleLayer } from "../permission/rules.ts";
import { isWithin } from "../sandbox/paths.ts";
import type { Access, Tool } from "../tools/tool.ts";
import { saveProjectRule } from "../permission/project_rules.ts";
import { HostWriteRefused } from "../sandbox/writer/host_write.ts";
import type { PermissionConfig } from "../permission/rules.ts";
import { type ReadVerdict, type ToolContext, ToolError } from "../tools/tool.ts";
import { checkSubject } from "../permission/evaluate.ts";
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

export function buildGate(
  spec: EngineSpec,
  io: EngineIO,
  emit: Emit,
  sandbox: SandboxState,
  agentPermission?: PermissionConfig,
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
        const answer = await broker.ask(request);
        // Not a refusal of this call: the person stopped the whole run.
        if (answer === "interrupt") throw interruptedAtPrompt(request, emit, turns);
        return answer;
      },
    },
    brokerSource: source,
    noSandbox: () => Boolean(sandbox.refusal && !sandbox.approved),
    saveProjectRule: async (key, patterns) => {
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
  const unsandboxed: Denial[] = [];

  /**
   * One access of one call, judged: the call's declared access, and then
   * whatever the tool asks for mid-call through `ctx.authorize` (a
   * redirect), on the same rules, broker and events. Throws when refused.
   */
  const judge = async (
    { tool, input, callId, turn }: { tool: Tool; input: unknown; callId: string; turn: number },
    access: Access,
    followUp: boolean,
  ): Promise<void> => {
    const outsideOwns = ownsViolation(spec, access, sandbox);
    if (outsideOwns) {
      unsandboxed.push({
        tool: tool.name,
        key: access.key,
        patterns: access.patterns,
        reason: outsideOwns,
      });
      throw new ToolError(
        "denied",
        outsideOwns,
        "Only change the paths this task owns; report anything else back.",
      );
    }
    turns.set(callId, turn);
    let result;
    try {
      result = await gate.check(tool.name, input, access, callId, { followUp });
    } finally {
      turns.delete(callId);
    }
    const decided = (
      decision: "allow" | "deny",
      source: EventBodies["permission.decided"]["source"],
    ) => emit("permission.decided", { turn, call_id: callId, tool: tool.name, decision, source });
    if (result.asked || !result.allowed) {
      decided(result.allowed ? "allow" : "deny", result.source);
    }
    if (!result.allowed) throw result.error;
    if (access.commands?.length && sandbox.refusal && !sandbox.approved) {
      // No OS sandbox: running this would be unsandboxed. Never silently.
      const asking = spec.interactive && !spec.flags.yes;
      const request: ApprovalRequest = {
        tool: tool.name,
        callId,
        access: {
          ...access,
          preview: `${sandbox.refusal.warning}\n\n${access.commands.join("\n")}`,
        },
        decision: { action: "ask", reason: "no sandbox available: run unsandboxed?", checks: [] },
        always: [],
      };
      if (asking) announce(request, turn);
      const answer = asking ? await io.ask(request) : "deny";
      if (answer === "interrupt") {
        throw interruptedAtPrompt(request, emit, new Map([[callId, turn]]));
      }
      if (!approves(answer)) {
        unsandboxed.push({
          tool: tool.name,
          key: access.key,
          patterns: access.patterns,
          reason: sandbox.refusal.message,
          allow_with: ["--sandbox", "full-access"],
        });
        decided("deny", asking ? "user" : spec.interactive ? "rule" : "headless");
        const reason = denialReason(answer);
        throw new ToolError(
          "denied",
          reason === undefined ? sandbox.refusal.message : `The user denied this: ${reason}`,
          "Do not retry commands in this session; tell the user how to enable the sandbox.",
        );
      }
      decided("allow", "user");
      sandbox.approved = true;
    }
  };

  return {
    async check(call, ctx) {
      await judge(call, await call.tool.declare(call.input, ctx), false);
      // The one way a running call asks for more: the same gate, call and turn.
      ctx.authorize = (access) => judge(call, access, true);
      return { allowed: true };
    },
    denials: () => [...gate.denials(), ...unsandboxed],
    async unattended({ tool, input }, ctx, options = {}) {
      const access = await tool.declare(input, ctx);
      const outsideOwns = ownsViolation(spec, access, sandbox);
      if (outsideOwns) return { allowed: false, reason: outsideOwns };
      const verdict = await gate.unattended(access, options);
      if (!verdict.allowed) {
        return {
          allowed: false,
          reason: verdict.decision.reason,
          ...(verdict.allow.kind === "flags" ? { allowWith: verdict.allow.args } : {}),
        };
      }
      if (access.commands?.length && sandbox.refusal && !sandbox.approved) {
        return {
          allowed: false,
          reason: sandbox.refusal.message,
          allowWith: ["--sandbox", "full-access"],
        };
      }
      return { allowed: true };
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
 * defaults → global → project → the parent chain's agents → this agent →
 * flags. A subagent's own rules may only tighten: its allows are dropped, so
 * a child never gets what its parents did not have.
 */
export function ruleLayers(spec: EngineSpec, agentPermission?: PermissionConfig): RuleLayer[] {
  const byLayer = (source: string) =>
    spec.permissionLayers.find((layer) => layer.source === source)?.permission as
      | PermissionConfig
      | undefined;
  return buildLayers({
    global: byLayer("global"),
    project: byLayer("project"),
    parentAgents: spec.inheritedPermission as PermissionConfig[],
    agent: agentPermission && (spec.depth > 0 ? withoutAllows(agentPermission) : agentPermission),
    flags: flagsLayer(spec.flags),
  });
}

/** Why this call breaks the subagent's `owns` narrowing, or null. */
function ownsViolation(spec: EngineSpec, access: Access, sandbox: SandboxState): string | null {
  if (!spec.owns.length) return null;
  const outside = (access.writes ?? []).filter(
    (written) => !spec.owns.some((owned) => isWithin(owned, written)),
  );
  if (outside.length) {
    return `this subagent may only write ${spec.owns.join(", ")}; ${
      outside.join(", ")
    } is not among them`;
  }
  if (access.commands?.length && sandbox.name !== "bwrap") {
    return "this subagent owns only some paths, and without bubblewrap its commands could write anywhere, so it may not run commands";
  }
  return null;
}

/**
 * The read rules' verdict on one file, for search tools (grep leaves out
 * what is not "allow"). Only the `read` key of the rule table is asked —
 * the folder was approved with the search itself — and no one is asked.
 */
export function readVerdictFor(
  spec: EngineSpec,
  agentPermission?: PermissionConfig,
): (real: string, display: string) => ReadVerdict {
  // Built at the first verdict: every call gets this in its context, few search.
  let layers: RuleLayer[] | undefined;
  return (_real, display) => {
    layers ??= ruleLayers(spec, agentPermission);
    const check = checkSubject(layers, "read", display);
    return { action: check.action, reason: check.reason, pattern: check.rule?.pattern };
  };
}
