/**
 * What a person could add to the command line so that a refused call runs
 * next time. Each suggestion is proved before it is offered: the call is
 * judged again with the suggested flags in place (rules in the flags layer,
 * the suggested sandbox mode or --add-dir folder), so a hint never names a
 * rule that cannot work — a rule for a whole compound line when each piece
 * is judged, a rule for a line the shell parser is unsure of while a narrower
 * bash rule keeps it asking, or any flag against a deny rule.
 */
import * as path from "../lib/path.ts";
import type { Access } from "../contracts/tool_call.ts";
import { alwaysPatternFor, type AlwaysRule } from "./always.ts";
import type { Decision } from "./decision.ts";
import { evaluate, type PolicyContext } from "./evaluate.ts";
import { mergeRule, type RuleLayer } from "./rules.ts";

/** Flags that would let a call through, or why none would. */
export type AllowHint =
  /** `config`: the same allows as a `permission` object, when that works from the global config too. */
  | { kind: "flags"; args: string[]; config?: string }
  | { kind: "blocked"; reason: string };

const LAYER_ORDER: RuleLayer["name"][] = [
  "defaults",
  "global",
  "project",
  "agent",
  "flags",
  "session",
];

const MAX_ROUNDS = 4;

/** `rule` for `--allow`: `bash(npm test *)`, or the bare key for `*`. */
export function ruleText(key: string, pattern: string): string {
  return pattern === "*" ? key : `${key}(${pattern})`;
}

/** `word` as one shell word: bare when that is safe, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The arguments as a person types them: `--allow 'bash(rm *)' --yes`. */
export function shellLine(args: string[]): string {
  return args.map(shellQuote).join(" ");
}

/** `layers` with `rules` added as allows to `into` (a copy; the gate's own layers stay as they are). */
export function withAllows(
  layers: RuleLayer[],
  rules: AlwaysRule[],
  into: RuleLayer["name"],
): RuleLayer[] {
  const copy = layers.map((layer) => ({ ...layer, permission: structuredClone(layer.permission) }));
  let target = copy.find((layer) => layer.name === into);
  if (!target) {
    target = { name: into, permission: {} };
    const rank = LAYER_ORDER.indexOf(into);
    const after = copy.findIndex((layer) => LAYER_ORDER.indexOf(layer.name) > rank);
    copy.splice(after < 0 ? copy.length : after, 0, target);
  }
  for (const rule of rules) {
    for (const pattern of rule.patterns) mergeRule(target.permission, rule.key, pattern, "allow");
  }
  return copy;
}

/**
 * The allow rules that answer the asks of `decision`: a bash piece gets its
 * "always" prefix (`rm -rf build` → `rm *`), a line the parser is unsure of
 * gets `bash(*)` (which only works with no narrower bash ask or deny, so it
 * is proved like the rest), other keys what an "always" answer would store.
 */
function allowsFor(
  access: Access,
  decision: Decision,
  always: (decision: Decision) => AlwaysRule[],
): {
  rules: AlwaysRule[];
  addDirs: string[];
  complete: boolean;
} {
  const asks = decision.checks.filter((check) => check.action === "ask");
  // The engine may touch no folder outside the workspace and --add-dir
  // (src/sandbox/worker_permissions.ts), whatever external_directory says.
  const addDirs = asks.filter((check) => check.key === "external_directory")
    .map((check) => folderOf(access.key, check.subject));
  const others = always(decision)
    .filter((rule) => rule.key !== "bash" && rule.key !== "external_directory");
  // An unsure line: bash(*) covers its pieces too, or nothing but --yes does.
  if (asks.some((check) => check.key === "bash" && check.subject === "")) {
    return { rules: [{ key: "bash", patterns: ["*"] }, ...others], addDirs, complete: true };
  }
  const rules: AlwaysRule[] = [];
  let complete = true;
  for (const check of asks) {
    if (check.key !== "bash") continue;
    // A destructive command gets no wider rule: the hint names it exactly, wildcards aside.
    const exact = /[*?]/.test(check.subject) ? null : check.subject;
    const pattern = alwaysPatternFor(check.subject) ?? exact;
    if (pattern === null) complete = false;
    else rules.push({ key: "bash", patterns: [pattern] });
  }
  return { rules: [...rules, ...others], addDirs, complete };
}

const SEARCH_KEYS = new Set(["glob", "grep", "list"]);

/**
 * The folder to add for a path outside: the folder a search names, or the
 * one holding a file. Told from the tool, not the disk: the engine may not
 * look outside the workspace.
 */
function folderOf(key: string, real: string): string {
  return SEARCH_KEYS.has(key) ? real : path.dirname(real);
}

/**
 * The flags that would allow `access` in a run like this one, proved by
 * judging the call again with them. `always` is the gate's "always" rules
 * for a decision (see alwaysRulesFor). When allow rules cannot do it (a
 * guard that asks whatever the rule), `--yes` is the answer; when a deny
 * rule refuses it, nothing is.
 */
export function allowHint(
  access: Access,
  ctx: PolicyContext,
  always: (decision: Decision) => AlwaysRule[],
  options: { noSandbox?: boolean } = {},
): AllowHint {
  let current: PolicyContext = { ...ctx, extraDirs: [...(ctx.extraDirs ?? [])] };
  const settings: string[] = [];
  // With no OS sandbox, a command runs headless only in full-access mode.
  if (options.noSandbox && access.commands?.length && ctx.mode !== "full-access") {
    current.mode = "full-access";
    settings.push("--sandbox", "full-access");
  }
  const allows: string[] = [];
  const rulesAdded: AlwaysRule[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const decision = evaluate(access, current);
    if (decision.action === "allow") {
      const args = [...lastSandbox(settings), ...allows];
      return {
        kind: "flags",
        args,
        config: settings.length ? undefined : configForm(access, ctx, rulesAdded),
      };
    }
    const denies = decision.checks.filter((check) => check.action === "deny");
    if (denies.length) {
      for (const check of denies) {
        if (!check.fix) return { kind: "blocked", reason: check.reason };
        if ("sandbox" in check.fix) {
          current = { ...current, mode: check.fix.sandbox };
          settings.push("--sandbox", check.fix.sandbox);
        } else {
          const folder = check.fix.addDir;
          current = { ...current, extraDirs: [...(current.extraDirs ?? []), folder] };
          settings.push("--add-dir", folder);
        }
      }
      continue;
    }
    const { rules, addDirs, complete } = allowsFor(access, decision, always);
    const added = rules.flatMap((rule) =>
      rule.patterns.map((pattern) => ruleText(rule.key, pattern))
    ).filter((text) => !allows.includes(text));
    const newDirs = addDirs.filter((folder) => !current.extraDirs?.includes(folder));
    // Nothing new to add (a guard asks whatever the rule says): allow rules cannot do it.
    if (!complete || !(added.length || newDirs.length)) break;
    for (const folder of new Set(newDirs)) settings.push("--add-dir", folder);
    current = {
      ...current,
      extraDirs: [...(current.extraDirs ?? []), ...new Set(newDirs)],
      layers: withAllows(current.layers, rules, "flags"),
    };
    rulesAdded.push(...rules);
    for (const text of new Set(added)) allows.push("--allow", text);
  }
  // Only asks are left that no allow rule answers: --yes approves each ask.
  const decision = evaluate(access, current);
  if (decision.checks.some((check) => check.action === "deny")) {
    return { kind: "blocked", reason: decision.reason };
  }
  return { kind: "flags", args: [...lastSandbox(settings), "--yes"] };
}

/**
 * The allows as a config `permission` object, offered only when they allow
 * the call from the global config too (a project or agent rule that asks
 * would outrank them there, but not on the command line).
 */
function configForm(access: Access, ctx: PolicyContext, rules: AlwaysRule[]): string | undefined {
  if (!rules.length) return undefined;
  const layers = withAllows(ctx.layers, rules, "global");
  if (evaluate(access, { ...ctx, layers }).action !== "allow") return undefined;
  const permission: Record<string, Record<string, "allow">> = {};
  for (const rule of rules) {
    for (const pattern of rule.patterns) (permission[rule.key] ??= {})[pattern] = "allow";
  }
  return JSON.stringify({ permission });
}

/** One `--sandbox` (the last chosen) and every `--add-dir`. */
function lastSandbox(settings: string[]): string[] {
  const result: string[] = [];
  let mode: string | undefined;
  for (let index = 0; index < settings.length; index += 2) {
    if (settings[index] === "--sandbox") mode = settings[index + 1];
    else result.push(settings[index], settings[index + 1]);
  }
  return mode ? ["--sandbox", mode, ...result] : result;
}
