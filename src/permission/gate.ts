/**
 * The permission gate the session loop calls before every tool runs: it
 * evaluates the call, asks the broker when the table says "ask", remembers
 * "always" answers, and keeps every denial for the final event. A deny from
 * the table never reaches the broker, so neither a person's click nor
 * `--yes` can override it.
 */
import * as path from "../lib/path.ts";
import type { Denial } from "../contracts/events.ts";
import type { Access } from "../contracts/tool_call.ts";
import { ToolError } from "../contracts/tool_call.ts";
import type { SandboxMode } from "../sandbox/modes.ts";
import { alwaysPatternFor } from "./always.ts";
import { ensureShellParser } from "./shell/shell_parser.ts";
import type { AlwaysRule, ApprovalAnswer, ApprovalBroker, ApprovalRequest } from "./broker.ts";
import { approves, denialMessage, denialReason } from "./broker.ts";
import { DoomLoopTracker } from "./doom_loop.ts";
import { type Decision, evaluate, type PolicyContext } from "./evaluate.ts";
import { type AllowHint, allowHint } from "./hints.ts";
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
  /** True while commands would be refused for want of an OS sandbox (hints then add full-access). */
  noSandbox?: () => boolean;
}

export type GateResult =
  | { allowed: true; asked: boolean; source: "rule" | "user" | "yes"; decision: Decision }
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

const SEARCH_KEYS = new Set(["glob", "grep", "list"]);

/**
 * What "always" approves outside the workspace: a searched folder and all
 * under it, or the folder holding a file. Never a top-level `/*`, which
 * would approve the whole disk.
 */
function externalPatterns(key: string, real: string): string[] {
  if (SEARCH_KEYS.has(key)) return [real, path.join(real, "*")];
  const folder = path.dirname(real);
  return folder === path.dirname(folder) ? [real] : [path.join(folder, "*")];
}

/** The rules an "always" answer adds, from the checks that asked. */
export function alwaysRulesFor(access: Access, decision: Decision): AlwaysRule[] {
  const byKey = new Map<string, Set<string>>();
  const add = (key: string, pattern: string | null) => {
    if (!pattern || (key === "bash" && pattern.trim() === "*")) return;
    if (!byKey.has(key)) byKey.set(key, new Set());
    byKey.get(key)!.add(pattern);
  };
  for (const check of decision.checks) {
    if (check.action !== "ask") continue;
    if (check.key === "bash") add("bash", alwaysPatternFor(check.subject));
    else if (check.key === "external_directory") {
      for (const pattern of externalPatterns(access.key, check.subject)) add(check.key, pattern);
    } else if (check.key === "doom_loop") add(check.key, check.subject);
    else if (check.key === access.key && access.always?.length) {
      for (const pattern of access.always) add(check.key, pattern);
    } else add(check.key, check.subject || "*");
  }
  return [...byKey].map(([key, patterns]) => ({ key, patterns: [...patterns] }));
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
   * Judge one call; `input` feeds the doom-loop tracker. A `followUp` is more
   * access asked for by a call already running (a redirect): judged the same
   * way, but not counted as another call.
   */
  async check(
    tool: string,
    input: unknown,
    access: Access,
    callId?: string,
    options: { followUp?: boolean } = {},
  ): Promise<GateResult> {
    const repeated = !options.followUp && this.#doomLoop.record(tool, input);
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
    // A local address is opened by a rule naming it or by a person, never by --yes.
    if (access.local && this.options.brokerSource === "yes") {
      return this.#refuse(request, context, "rule", false);
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
   */
  async unattended(access: Access, options: { byRule?: boolean } = {}): Promise<UnattendedVerdict> {
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
      { noSandbox: this.options.noSandbox?.() },
    );
    // Where only --yes would do, and --yes does not count, no flag allows it.
    if (options.byRule && allow.kind === "flags" && allow.args.includes("--yes")) {
      return { allowed: false, decision, allow: { kind: "blocked", reason: decision.reason } };
    }
    return { allowed: false, decision, allow };
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
      { noSandbox: this.options.noSandbox?.() },
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
