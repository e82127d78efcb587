/**
 * Judges one tool call against the layered rule table. Each layer's verdict
 * is its last matching rule; a deny from any layer wins; otherwise the last
 * layer with a match decides; with no match the key's default applies.
 * Every part of a call must pass: each simple command of a bash line (and
 * a line the shell parser cannot fully account for is asked about), each
 * path outside the workspace (`external_directory`), a repeated call
 * (`doom_loop`), and the sandbox mode's own limits on writes.
 */
import * as path from "../lib/path.ts";
import type { Access, McpToolKey } from "../contracts/tool_call.ts";
import type { SandboxMode } from "../sandbox/modes.ts";
import { resolveWorkspacePath } from "../sandbox/paths.ts";
import { isToolWriteProtected } from "../sandbox/protected.ts";
import { codePathCheck } from "./code_path_check.ts";
import type { Check, Decision } from "./decision.ts";
import { analyzeCommand } from "./shell/bash_split.ts";
import { keyDefault, PATH_KEYS } from "./defaults.ts";
import { mcpRuleKeyMatches } from "./mcp_rule_keys.ts";
import { gitCodeExecutionReason } from "./shell/git_code_rules.ts";
import { protectedCommandReason } from "./shell/protected_commands.ts";
import { namesHostAndPort, URL_KEYS, urlPatternMatch } from "./url_pattern.ts";
import {
  describeRule,
  flattenLayer,
  type Rule,
  type RuleLayer,
  stricter,
  wildcardMatch,
} from "./rules.ts";

export type { Check, Decision } from "./decision.ts";

export interface PolicyContext {
  /** Layers in precedence order: defaults, global, project, agent, flags, session. */
  layers: RuleLayer[];
  /** Absolute workspace root. */
  workspace: string;
  /** `--add-dir` folders: inside, like the workspace. */
  extraDirs?: string[];
  /** @default "workspace-write" */
  mode?: SandboxMode;
  /** `sandbox.protect`: more files that run code later, which writes ask for. */
  protect?: readonly string[];
  /** True when this exact call is the third in a row (see DoomLoopTracker). */
  repeated?: boolean;
}

function subjectMatches(rule: Rule, key: string, subject: string): boolean {
  // A URL rule names a host, port and path of the parsed URL, never a run of its text.
  if (URL_KEYS.has(key)) return urlPatternMatch(rule.pattern, subject);
  if (wildcardMatch(rule.pattern, subject)) return true;
  // A path rule without a slash (`*.env`, `id_*`) also matches a file's base name.
  return PATH_KEYS.has(key) && !rule.pattern.includes("/") &&
    wildcardMatch(rule.pattern, subject.split("/").pop() ?? subject);
}

/**
 * The rules of `layer` whose key matches `key`, in the order written: the
 * rules of other keys could never match, and a call's check would otherwise
 * build every rule of every layer. An MCP tool's key is matched by its own
 * rules (src/permission/mcp_rule_keys.ts), which depend on the rule's action.
 */
function rulesForKey(layer: RuleLayer, key: string, mcp?: McpToolKey): Rule[] {
  const rules: Rule[] = [];
  for (const [ruleKey, value] of Object.entries(layer.permission)) {
    if (!mcp && !wildcardMatch(ruleKey, key)) continue;
    if (typeof value === "string") {
      if (!mcp || mcpRuleKeyMatches(ruleKey, value, key, mcp)) {
        rules.push({ layer: layer.name, key: ruleKey, pattern: "*", action: value });
      }
      continue;
    }
    for (const [pattern, action] of Object.entries(value)) {
      if (mcp && !mcpRuleKeyMatches(ruleKey, action, key, mcp)) continue;
      rules.push({ layer: layer.name, key: ruleKey, pattern, action });
    }
  }
  return rules;
}

/**
 * The rule table's answer for one key and subject. `mcp`: the key is that MCP
 * tool's name, judged in the MCP tools' namespace (src/permission/mcp_rule_keys.ts):
 * the built-in keys' defaults do not reach it, and with no matching rule it asks.
 * `counts` leaves rules out of the judgement (a local address: allows that do
 * not name its host and port).
 */
export function checkSubject(
  layers: RuleLayer[],
  key: string,
  subject: string,
  mcp?: McpToolKey,
  counts?: (rule: Rule) => boolean,
): Check {
  let deciding: Rule | undefined;
  let deny: Rule | undefined;
  for (const layer of layers) {
    // The defaults are the built-in keys' own rules: none is an MCP tool's.
    if (mcp && layer.name === "defaults") continue;
    let layerVerdict: Rule | undefined;
    for (const rule of rulesForKey(layer, key, mcp)) {
      if (counts && !counts(rule)) continue;
      if (subjectMatches(rule, key, subject)) layerVerdict = rule;
    }
    if (!layerVerdict) continue;
    if (layerVerdict.action === "deny" && !deny) deny = layerVerdict;
    deciding = layerVerdict;
  }
  const rule = deny ?? deciding;
  const shown = subject === "" ? key : `${key}(${subject})`;
  if (!rule) {
    const action = mcp ? "ask" : keyDefault(key);
    return { key, subject, action, reason: `${shown}: no rule matches; the default is ${action}` };
  }
  const how = deny && deciding !== deny ? " (a deny in any layer wins)" : "";
  return {
    key,
    subject,
    action: rule.action,
    rule,
    reason: `${shown}: ${describeRule(rule)}${how}`,
  };
}

/**
 * True when the line is allowed by a `bash(*)` rule and no bash rule of any
 * layer, other than one for every command, asks or denies: a construct the
 * parser cannot see into then has no rule it could slip past.
 */
function allowsEveryCommand(layers: RuleLayer[], line: string): boolean {
  const check = checkSubject(layers, "bash", line);
  if (check.action !== "allow" || check.rule?.pattern !== "*") return false;
  return !layers.some((layer) =>
    flattenLayer(layer).some((rule) =>
      wildcardMatch(rule.key, "bash") && rule.pattern !== "*" && rule.action !== "allow"
    )
  );
}

function modeCheck(key: string, target: string, reason: string, fix: Check["fix"]): Check {
  return { key, subject: target, action: "deny", reason, fix };
}

/**
 * A URL reaching a local address: only an allow rule naming its host and
 * port counts (a deny or ask still does), so `webfetch(*)`, a host wildcard
 * or `--yes` (which answers asks; the gate refuses it these) never open the
 * machine's own services or the metadata address to a page or a model.
 */
function localUrlCheck(layers: RuleLayer[], access: Access, subject: string): Check {
  const check = checkSubject(
    layers,
    access.key,
    subject,
    undefined,
    (rule) => rule.action !== "allow" || namesHostAndPort(rule.pattern, subject),
  );
  if (check.action !== "allow") {
    check.reason += `; ${access.local}, which only a rule naming its host and port allows`;
  }
  return check;
}

/** The checks one call needs, before combining them. */
function checksFor(access: Access, ctx: PolicyContext): Check[] {
  const { layers, workspace } = ctx;
  const extraDirs = ctx.extraDirs ?? [];
  const mode = ctx.mode ?? "workspace-write";
  const checks: Check[] = [];
  if (access.key === "bash") {
    const commands = access.commands?.length ? access.commands : access.patterns;
    for (const command of commands) {
      const analysis = analyzeCommand(command);
      // Fail closed: what the parser cannot account for is asked, never allowed,
      // unless every command is allowed (`bash(*)`) and no narrower bash rule
      // asks or denies: then there is nothing it could be hiding from. First,
      // so that among equal asks its reason is the one shown.
      const trusted = analysis.unsure.length > 0 && allowsEveryCommand(layers, command);
      // What the parser cannot see is a command no narrower rule names: denied where
      // such a command is (the plan agent's `"*": "deny"`, which `--yes` does not lift).
      const unseen = trusted || !analysis.unsure.length
        ? undefined
        : checkSubject(layers, "bash", "");
      for (const unsure of unseen ? analysis.unsure : []) {
        const denied = unseen?.action === "deny";
        checks.push({
          key: "bash",
          subject: "",
          action: denied ? "deny" : "ask",
          rule: denied ? unseen.rule : undefined,
          reason: `bash: ${unsure}, so skiff cannot tell everything the command would run` +
            (denied
              ? `, and a command no rule allows is denied (${
                unseen.rule ? describeRule(unseen.rule) : unseen.reason
              })`
              : ""),
        });
      }
      for (const piece of analysis.commands) {
        const check = checkSubject(layers, "bash", piece);
        // The OS sandbox cannot protect what does not exist yet (docs/security.md).
        const guarded = check.action !== "allow"
          ? null
          : (mode === "workspace-write" ? protectedCommandReason(piece) : null) ??
            gitCodeExecutionReason(piece, check.rule?.pattern ?? "*");
        if (guarded) {
          check.action = "ask";
          check.reason += `; ${guarded}`;
        }
        checks.push(check);
      }
    }
  } else if (access.local && URL_KEYS.has(access.key)) {
    for (const subject of access.patterns) checks.push(localUrlCheck(layers, access, subject));
  } else {
    const subjects = access.patterns.length ? access.patterns : [""];
    for (const subject of subjects) {
      checks.push(checkSubject(layers, access.key, subject, access.mcp));
    }
  }
  const outside = new Set<string>();
  for (
    const [list, writing] of [[access.reads ?? [], false], [access.writes ?? [], true]] as const
  ) {
    for (const target of list) {
      const resolved = resolveWorkspacePath(workspace, target, extraDirs);
      if (!resolved.inside) outside.add(resolved.real);
      if (!writing || mode === "full-access") continue;
      if (mode === "read-only") {
        checks.push(
          modeCheck(
            access.key,
            resolved.real,
            `${resolved.real}: the sandbox is read-only; run with --sandbox workspace-write to allow edits`,
            { sandbox: "workspace-write" },
          ),
        );
      } else if (isToolWriteProtected(workspace, resolved.real, extraDirs)) {
        checks.push(
          modeCheck(
            access.key,
            resolved.real,
            `${
              resolved.relative ?? resolved.real
            } is write-protected in workspace-write mode (git's folder, skiff's config, agent files and .mcp.json); edit it yourself, or use --sandbox full-access`,
            { sandbox: "full-access" },
          ),
        );
      } else if (!resolved.inside) {
        checks.push(
          modeCheck(
            access.key,
            resolved.real,
            `${resolved.real} is outside the workspace; workspace-write allows writes only inside it (add the folder with --add-dir)`,
            { addDir: path.dirname(resolved.real) },
          ),
        );
      } else {
        const code = codePathCheck(
          resolved.real,
          [workspace, ...extraDirs],
          ctx.protect,
          (subject) => checkSubject(layers, "edit", subject),
        );
        if (code) checks.push(code);
      }
    }
  }
  for (const real of outside) checks.push(checkSubject(layers, "external_directory", real));
  if (ctx.repeated) {
    const check = checkSubject(layers, "doom_loop", access.key);
    check.reason += "; the same call came three times in a row";
    checks.push(check);
  }
  return checks;
}

/** The decision for one call: the strictest of its checks. */
export function evaluate(access: Access, ctx: PolicyContext): Decision {
  const checks = checksFor(access, ctx);
  let deciding: Check | undefined;
  for (const check of checks) {
    if (!deciding || stricter(deciding.action, check.action) !== deciding.action) deciding = check;
  }
  if (!deciding) {
    const action = access.mcp ? "ask" : keyDefault(access.key);
    return { action, reason: `${access.key}: default ${action}`, checks };
  }
  return { action: deciding.action, reason: deciding.reason, rule: deciding.rule, checks };
}
