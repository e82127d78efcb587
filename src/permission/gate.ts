/**
 * The permission judge: every call the model makes, and every access a
 * running call asks for, is judged here, on one evaluation — the rule table
 * (defaults → global → project → agent → flags → this session's "always"
 * answers), a task's `owns` narrowing, and, when no OS sandbox can contain
 * commands, the question whether to run them unsandboxed. An ask goes to
 * the one broker; every refusal lands in the one denial list for the final
 * event. A deny never reaches the broker, so neither a person's click nor
 * `--yes` can override it; the unsandboxed question is a person's alone.
 */
import type { Denial, EventBodies } from "../contracts/events.ts";
import type { Access } from "../contracts/tool_call.ts";
import { ToolError } from "../contracts/tool_call.ts";
import type { SandboxMode } from "../sandbox/modes.ts";
import { alwaysRulesFor } from "./always.ts";
import { ensureShellParser } from "./shell/shell_parser.ts";
import type { ApprovalAnswer, ApprovalBroker, ApprovalRequest } from "./broker.ts";
import { approves, denialMessage, denialReason } from "./broker.ts";
import { DoomLoopTracker } from "./doom_loop.ts";
import type { Check, Decision } from "./decision.ts";
import { checkSubject, evaluate, type PolicyContext } from "./evaluate.ts";
import { type AllowHint, allowHint } from "./hints.ts";
import { type OwnsRule, ownsViolation } from "./owns.ts";
import type { RuleLayer } from "./rules.ts";
import { SessionRules } from "./session_rules.ts";

export interface GateOptions {
  /** defaults → global → project → agent → flags (the session layer is added here). */
  layers: RuleLayer[];
  workspace: string;
  extraDirs?: string[];
  mode?: SandboxMode;
  /** `sandbox.protect`: more files that run code later, which writes ask for. */
  protect?: readonly string[];
  broker: ApprovalBroker;
  /** Writes an "always, here" rule to the project config (saveProjectRule). */
  saveProjectRule?: (key: string, patterns: string[]) => Promise<unknown>;
  /** Where "broker" answers count as `source` in permission.decided. @default "user" */
  brokerSource?: "user" | "headless" | "yes";
  sessionRules?: SessionRules;
  doomLoop?: DoomLoopTracker;
  /** A subagent's or batch task's `owns`: the only paths its calls may write. */
  owns?: OwnsRule;
  /** Set when no OS sandbox can contain commands: they run only on a person's yes. */
  unsandboxed?: UnsandboxedRule;
  /**
   * A person is at the terminal, even where the broker is `--yes`: a refused
   * unsandboxed run nobody was asked about is then the rule's doing, not a
   * headless run's.
   */
  attended?: boolean;
}

/**
 * No OS sandbox can contain commands in this mode. Each command is a
 * question for a person (`--yes` does not answer it, a headless run refuses
 * it); one yes holds for the rest of the session.
 */
export interface UnsandboxedRule {
  /** Why commands cannot be contained, until a person says yes; undefined from then on. */
  refusal(): { message: string; warning: string } | undefined;
  /** A person said yes: later commands run without asking again. */
  approve(): void;
}

/** Where a verdict came from, as `permission.decided` names it. */
export type DecisionSource = EventBodies["permission.decided"]["source"];

/** How one access of one call is judged. */
export interface CheckOptions {
  /**
   * More access asked for by a call already running (a redirect): judged
   * the same way, but not counted as another call.
   */
  followUp?: boolean;
  /**
   * A call no model chose (an MCP client's, `skiff tool`'s, the chat's
   * `!command`): the repeated-call guard watches a model stuck in a loop,
   * and a script or a person repeating a call is not one, so it is not
   * counted. Every rule still judges it.
   */
  notByModel?: boolean;
  /** Told of each refusal and each answered question, in the order they happen. */
  decided?: (decision: "allow" | "deny", source: DecisionSource) => void;
  /**
   * A PreToolUse hook approved the call: it answers the rules' question in
   * place of the broker, as `--yes` would. A deny stays a deny, and a local
   * address still needs a rule or a person.
   */
  hookApproved?: boolean;
  /**
   * The person typed this call themselves (the chat's `!command`): where the
   * rules would ask, it is their own yes, so no question is put. A deny, the
   * `owns` narrowing and the unsandboxed question still hold.
   */
  typedByPerson?: boolean;
}

export type GateResult =
  | { allowed: true; asked: boolean; source: "rule" | "user" | "yes" | "hook"; decision: Decision }
  | {
    allowed: false;
    asked: boolean;
    source: "rule" | "user" | "headless";
    decision: Decision;
    /** Hand this to the model as the call's result. */
    error: ToolError;
  };

/** `PermissionGate.unattended`'s answer. */
export type UnattendedVerdict =
  | { allowed: true; decision: Decision }
  | { allowed: false; decision: Decision; allow: AllowHint };

/**
 * The rule table's verdict on one key and subject under `layers`, asking no
 * one and recording nothing: for what needs the rules' word outside a call
 * (a search tool's verdict on each file it would open, the user's own rules
 * on a project's MCP server).
 */
export function ruleVerdict(layers: RuleLayer[], key: string, subject: string): Check {
  return checkSubject(layers, key, subject);
}

export class PermissionGate {
  readonly sessionRules: SessionRules;
  readonly #doomLoop: DoomLoopTracker;
  readonly #denials: Denial[] = [];

  constructor(readonly options: GateOptions) {
    this.sessionRules = options.sessionRules ?? new SessionRules();
    this.#doomLoop = options.doomLoop ?? new DoomLoopTracker();
  }

  /** Every call refused so far (by rule, by a person, or for want of one). */
  denials(): Denial[] {
    return [...this.#denials];
  }

  #layers(): RuleLayer[] {
    return [...this.options.layers, this.sessionRules.layer()];
  }

  /**
   * Judge one call (or, with `followUp`, more access for one already
   * running); `input` feeds the doom-loop tracker. The `owns` narrowing
   * first, then the rule table and its question, then the unsandboxed
   * question for a command.
   */
  async check(
    tool: string,
    input: unknown,
    access: Access,
    callId?: string,
    options: CheckOptions = {},
  ): Promise<GateResult> {
    const outsideOwns = ownsViolation(this.options.owns, access);
    if (outsideOwns) return this.#refuseOutsideOwns(tool, access, outsideOwns);
    const result = await this.#byRules(tool, input, access, callId, options);
    if (result.asked || !result.allowed) {
      options.decided?.(result.allowed ? "allow" : "deny", result.source);
    }
    if (!result.allowed || !access.commands?.length) return result;
    const refusal = this.options.unsandboxed?.refusal();
    if (!refusal) return result;
    return await this.#runUnsandboxed(tool, access, callId, refusal, options);
  }

  /** The rule table's verdict, with its question to the broker when the table says "ask". */
  async #byRules(
    tool: string,
    input: unknown,
    access: Access,
    callId: string | undefined,
    options: CheckOptions,
  ): Promise<GateResult> {
    const repeated = !options.followUp && !options.notByModel &&
      this.#doomLoop.record(tool, input);
    // Loaded on the first command, not at start-up; a load failure makes commands ask.
    if (access.key === "bash") await ensureShellParser();
    const context = this.#context(repeated);
    const decision = evaluate(access, context);
    const request: ApprovalRequest = {
      tool,
      callId,
      access,
      decision,
      always: alwaysRulesFor(access, decision),
    };
    if (decision.action === "allow") {
      return { allowed: true, asked: false, source: "rule", decision };
    }
    if (decision.action === "deny") return this.#refuse(request, context, "rule", false);
    if (options.typedByPerson && !options.followUp) {
      options.decided?.("allow", "user");
      return { allowed: true, asked: false, source: "user", decision };
    }
    // A local address is opened by a rule naming it or by a person, never by --yes.
    if (access.local && this.options.brokerSource === "yes") {
      return this.#refuse(request, context, "rule", false);
    }
    if (options.hookApproved && !access.local) {
      return { allowed: true, asked: true, source: "hook", decision };
    }
    const answer: ApprovalAnswer = await this.options.broker.ask(request);
    const source = this.options.brokerSource ?? "user";
    if (!approves(answer)) {
      return this.#refuse(
        request,
        context,
        source === "headless" ? "headless" : "user",
        true,
        denialReason(answer),
      );
    }
    if (answer === "always" || answer === "always-here") {
      for (const rule of request.always) this.sessionRules.add(rule.key, rule.patterns);
    }
    if (answer === "always-here" && this.options.saveProjectRule) {
      for (const rule of request.always) {
        await this.options.saveProjectRule(rule.key, rule.patterns);
      }
    }
    return { allowed: true, asked: true, source: source === "yes" ? "yes" : "user", decision };
  }

  /**
   * How a call would fare with nobody to ask and nothing recorded (no
   * question, no denial, no doom-loop count): allowed when a rule allows it,
   * or when its asks would be approved by `--yes`. Otherwise the flags that
   * would allow it, proved as a denial's are. For work skiff does on the
   * model's word after its turn (a proposed done criterion). `byRule`: only
   * an allow rule will do, not `--yes` (for commands a repository supplied).
   * The `owns` narrowing and a missing sandbox refuse as they do a call.
   */
  async unattended(access: Access, options: { byRule?: boolean } = {}): Promise<UnattendedVerdict> {
    const outsideOwns = ownsViolation(this.options.owns, access);
    if (outsideOwns) {
      return {
        allowed: false,
        decision: refusedBy(access, outsideOwns),
        allow: { kind: "blocked", reason: outsideOwns },
      };
    }
    const verdict = await this.#unattendedByRules(access, options);
    const refusal = access.commands?.length ? this.options.unsandboxed?.refusal() : undefined;
    if (!verdict.allowed || !refusal) return verdict;
    return {
      allowed: false,
      decision: refusedBy(access, refusal.message),
      allow: { kind: "flags", args: [...UNSANDBOXED_FLAGS] },
    };
  }

  async #unattendedByRules(
    access: Access,
    options: { byRule?: boolean },
  ): Promise<UnattendedVerdict> {
    if (access.key === "bash") await ensureShellParser();
    const context = this.#context(false);
    const decision = evaluate(access, context);
    // As in `check`: a local address is never opened by --yes.
    const yes = this.options.brokerSource === "yes" && !options.byRule && !access.local;
    if (decision.action === "allow" || (decision.action === "ask" && yes)) {
      return { allowed: true, decision };
    }
    const allow = allowHint(
      access,
      context,
      (decided) => alwaysRulesFor(access, decided),
      { noSandbox: this.#noSandbox() },
    );
    // Where only --yes would do, and --yes does not count, no flag allows it.
    if (options.byRule && allow.kind === "flags" && allow.args.includes("--yes")) {
      return { allowed: false, decision, allow: { kind: "blocked", reason: decision.reason } };
    }
    return { allowed: false, decision, allow };
  }

  /** True while commands would be refused for want of an OS sandbox (hints then add full-access). */
  #noSandbox(): boolean {
    return this.options.unsandboxed?.refusal() !== undefined;
  }

  /**
   * A command the rules allowed, with no OS sandbox to contain it: never run
   * silently. A person is asked; `--yes` does not stand in for them, and
   * with nobody to ask the command is refused, with the way out.
   */
  async #runUnsandboxed(
    tool: string,
    access: Access,
    callId: string | undefined,
    refusal: { message: string; warning: string },
    options: CheckOptions,
  ): Promise<GateResult> {
    const request: ApprovalRequest = {
      tool,
      callId,
      access: { ...access, preview: `${refusal.warning}\n\n${access.commands!.join("\n")}` },
      decision: { action: "ask", reason: "no sandbox available: run unsandboxed?", checks: [] },
      always: [],
    };
    const asking = (this.options.brokerSource ?? "user") === "user";
    const answer: ApprovalAnswer = asking ? await this.options.broker.ask(request) : "deny";
    if (approves(answer)) {
      options.decided?.("allow", "user");
      this.options.unsandboxed!.approve();
      return { allowed: true, asked: true, source: "user", decision: request.decision };
    }
    this.#denials.push({
      tool,
      key: access.key,
      patterns: access.patterns,
      reason: refusal.message,
      allow_with: [...UNSANDBOXED_FLAGS],
    });
    const source = asking ? "user" : this.options.attended ? "rule" : "headless";
    options.decided?.("deny", source);
    const userReason = denialReason(answer);
    const error = new ToolError(
      "denied",
      userReason === undefined ? refusal.message : `The user denied this: ${userReason}`,
      "Do not retry commands in this session; tell the user how to enable the sandbox.",
    );
    return { allowed: false, asked: asking, source, decision: request.decision, error };
  }

  /** A write outside what the task owns: refused, and no one is asked. */
  #refuseOutsideOwns(tool: string, access: Access, reason: string): GateResult {
    this.#denials.push({ tool, key: access.key, patterns: access.patterns, reason });
    const error = new ToolError(
      "denied",
      reason,
      "Only change the paths this task owns; report anything else back.",
    );
    return {
      allowed: false,
      asked: false,
      source: "rule",
      decision: refusedBy(access, reason),
      error,
    };
  }

  /** What the policy table judges a call against, now. */
  #context(repeated: boolean): PolicyContext {
    const { workspace, extraDirs, mode, protect } = this.options;
    return { layers: this.#layers(), workspace, extraDirs, mode, protect, repeated };
  }

  #refuse(
    request: ApprovalRequest,
    context: PolicyContext,
    source: "rule" | "user" | "headless",
    asked: boolean,
    userReason?: string,
  ): GateResult {
    const allow = allowHint(
      request.access,
      context,
      (decision) => alwaysRulesFor(request.access, decision),
      { noSandbox: this.#noSandbox() },
    );
    this.#denials.push({
      tool: request.tool,
      key: request.access.key,
      patterns: request.access.patterns,
      // Refused for the reason the user typed, not for the rule that asked.
      reason: userReason === undefined
        ? request.decision.reason
        : `denied at the prompt: ${userReason}`,
      ...(allow.kind === "flags" ? { allow_with: allow.args } : {}),
    });
    const { message, hint } = denialMessage(request, source, allow, userReason);
    const error = new ToolError("denied", message, hint, {
      reason: request.decision.reason,
      source,
    });
    return { allowed: false, asked, source, decision: request.decision, error };
  }
}

/** The flags that let a command run where no OS sandbox exists. */
const UNSANDBOXED_FLAGS = ["--sandbox", "full-access"];

/** A refusal no rule of the table made (the `owns` narrowing, no sandbox), as a decision. */
function refusedBy(access: Access, reason: string): Decision {
  return {
    action: "deny",
    reason,
    checks: [{ key: access.key, subject: "", action: "deny", reason }],
  };
}
