/**
 * Who answers when the rule table says "ask". The interface is one method;
 * the headless broker refuses and records why, `--yes` approves (asks only:
 * a deny never reaches a broker), and the interactive one prompts a person.
 */
import type { Denial } from "../session/events.ts";
import type { Access } from "../tools/tool.ts";
import type { Decision } from "./evaluate.ts";

export type ApprovalAnswer = "once" | "always" | "always-here" | "deny";

/** The rules an "always" answer would add, per key. */
export interface AlwaysRule {
  key: string;
  patterns: string[];
}

/** Everything a broker needs; plain data, so it crosses a Worker boundary. */
export interface ApprovalRequest {
  tool: string;
  callId?: string;
  access: Access;
  decision: Decision;
  always: AlwaysRule[];
}

export interface ApprovalBroker {
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

function quoteForShell(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The `--allow` flags that would approve this request next time. */
export function allowFlagsFor(request: ApprovalRequest): string[] {
  const flags: string[] = [];
  for (const rule of request.always) {
    for (const pattern of rule.patterns) {
      flags.push(
        `--allow ${quoteForShell(pattern === "*" ? rule.key : `${rule.key}(${pattern})`)}`,
      );
    }
  }
  return flags;
}

/**
 * What the model is told when a call is refused: why, and what a person
 * could do to allow it. A deny rule cannot be overridden, so then the hint
 * names the rule instead of a flag.
 */
export function denialMessage(request: ApprovalRequest, source: "rule" | "user" | "headless"): {
  message: string;
  hint: string;
} {
  const { decision } = request;
  if (source === "rule") {
    return {
      message: `Permission denied: ${decision.reason}.`,
      hint: "A deny rule always wins and no flag overrides it; do not retry this call. " +
        "Find another way, or tell the user which rule blocks you.",
    };
  }
  if (source === "user") {
    return {
      message: `The user refused this call (${decision.reason}).`,
      hint: "Do not retry it; ask the user what they want instead, or take another approach.",
    };
  }
  const flags = allowFlagsFor(request);
  const rule = request.always[0];
  const example = rule
    ? JSON.stringify({ permission: { [rule.key]: { [rule.patterns[0] ?? "*"]: "allow" } } })
    : "";
  return {
    message:
      `Permission needed but nobody can approve it in this headless run: ${decision.reason}.`,
    hint: `Do not retry this call. The user can allow it by rerunning with ${
      flags.length ? flags.join(" ") : "--allow"
    }${
      example
        ? `, or by adding ${example} to the global config (or to skiff.json of a trusted project)`
        : ""
    }, or with --yes to approve every ask.`,
  };
}

/** No terminal: refuses every ask and keeps the list for `session.completed`. */
export class HeadlessBroker implements ApprovalBroker {
  readonly #denials: Denial[] = [];

  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.#denials.push({
      tool: request.tool,
      key: request.access.key,
      patterns: request.access.patterns,
      reason: request.decision.reason,
    });
    return Promise.resolve("deny");
  }

  denials(): Denial[] {
    return [...this.#denials];
  }
}

/** `--yes`: approves each ask once. Denies never reach it. */
export class YesBroker implements ApprovalBroker {
  ask(_request: ApprovalRequest): Promise<ApprovalAnswer> {
    return Promise.resolve("once");
  }
}
