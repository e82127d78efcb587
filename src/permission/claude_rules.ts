/**
 * Claude Code's permission rules (`Bash(git status:*)`, `Read(./.env)`,
 * `WebFetch(domain:example.com)`, `mcp__github__get_issue`) read as skiff
 * rules. A rule is mapped only when skiff's rule covers no more than the one
 * written: skiff's `*` crosses folders and `?` is a wildcard, so an allow that
 * would widen under skiff's reading is left out with a reason instead. An ask
 * or a deny may come out wider (it only tightens) but never narrower than
 * written where that is avoidable. Pure: no I/O.
 */
import { sanitizeName } from "../contracts/mcp_names.ts";
import * as path from "../lib/path.ts";
import type { Action } from "./rules.ts";

/** A mapped rule, or why the rule has no skiff counterpart. */
export type ClaudeRuleMapping =
  | { kind: "rule"; key: string; pattern: string }
  | { kind: "unmapped"; reason: string };

/** Where a rule was written, for the paths it names. */
export interface ClaudeRuleOrigin {
  /** The user's home, for `~/` paths. */
  home: string;
  /** True for a project's settings file: `/path` is then relative to the workspace. */
  project: boolean;
  /**
   * The workspace's real path: an absolute path inside it becomes relative,
   * as the file tools name such a file, so a deny written absolute still matches.
   */
  workspace?: string;
}

/** Claude Code's tool names that skiff reads, and the skiff key each becomes. */
const TOOL_KEYS: Record<string, string> = {
  Bash: "bash",
  Read: "read",
  Edit: "edit",
  Write: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  WebFetch: "webfetch",
  Glob: "glob",
  Grep: "grep",
  LS: "list",
  Task: "task",
  Skill: "skill",
  TodoWrite: "todowrite",
};

/** Claude Code tools skiff has no counterpart for: named, so the note says so. */
const OTHER_TOOLS = new Set([
  "WebSearch",
  "NotebookRead",
  "BashOutput",
  "KillShell",
  "KillBash",
  "SlashCommand",
  "ExitPlanMode",
  "AskUserQuestion",
  "TodoRead",
  "Agent",
]);

const PATH_TOOLS = new Set(["read", "edit"]);

/**
 * Whether `text` is written in Claude Code's spelling: one of its capitalised
 * tool names (`Bash`, `Read(…)`, …) or an `mcp__` tool. skiff's own keys are
 * lower case, so the two never meet.
 */
export function isClaudeRule(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith("mcp__")) return true;
  const name = /^([A-Za-z]+)(?:\(|$)/.exec(trimmed)?.[1];
  return name !== undefined && (name in TOOL_KEYS || OTHER_TOOLS.has(name));
}

/** `Bash(git status:*)` → bash `git status *`, for a rule that `action`s. */
export function mapClaudeRule(
  text: string,
  action: Action,
  origin: ClaudeRuleOrigin,
): ClaudeRuleMapping {
  const trimmed = text.trim();
  if (trimmed.startsWith("mcp__")) return mapMcpRule(trimmed, action);
  const parsed = /^([A-Za-z]+)(?:\(([\s\S]*)\))?$/.exec(trimmed);
  if (!parsed) return unmapped("not a rule of the form Tool or Tool(specifier)");
  const [, tool, specifier] = parsed;
  const key = TOOL_KEYS[tool];
  if (!key) {
    return unmapped(
      OTHER_TOOLS.has(tool) ? `skiff has no ${tool} tool` : `unknown tool "${tool}"`,
    );
  }
  const spec = specifier?.trim();
  if (spec === undefined || spec === "*") return { kind: "rule", key, pattern: "*" };
  if (!spec) return unmapped("the specifier in ( ) is empty");
  if (key === "webfetch") return mapWebFetch(spec);
  if (key === "bash") return mapBash(spec, action);
  if (PATH_TOOLS.has(key)) return mapPath(key, spec, action, origin);
  if (key === "glob" || key === "grep" || key === "list") {
    return unmapped(`skiff's ${key} takes no specifier; its files are judged by the read rules`);
  }
  if (action === "allow" && spec.includes("?")) return wideQuestionMark();
  return { kind: "rule", key, pattern: spec };
}

function unmapped(reason: string): ClaudeRuleMapping {
  return { kind: "unmapped", reason };
}

function wideQuestionMark(): ClaudeRuleMapping {
  return unmapped(
    "skiff reads ? as any one character, so the allow would cover more than written",
  );
}

/** `:*` at the end is a prefix: skiff's `prefix *` (which also covers the bare prefix). */
function mapBash(spec: string, action: Action): ClaudeRuleMapping {
  let pattern = spec;
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2).trimEnd();
    if (!prefix) return unmapped("the prefix before :* is empty");
    pattern = `${prefix} *`;
  }
  if (action === "allow" && pattern.includes("?")) return wideQuestionMark();
  return { kind: "rule", key: "bash", pattern };
}

/**
 * Claude Code's paths follow gitignore: `//x` is absolute, `~/x` in the home,
 * `/x` relative to the settings file's project, `x` and `./x` relative to the
 * working folder (skiff's workspace); `**` crosses folders, `*` does not.
 */
function mapPath(
  key: string,
  spec: string,
  action: Action,
  origin: ClaudeRuleOrigin,
): ClaudeRuleMapping {
  let pattern: string;
  if (spec.startsWith("//")) pattern = spec.slice(1);
  else if (spec === "~" || spec.startsWith("~/")) pattern = path.join(origin.home, spec.slice(2));
  else if (spec.startsWith("/")) {
    if (!origin.project) {
      return unmapped(
        "a /path in the user's settings is relative to that file's folder; write //path or ~/path",
      );
    }
    pattern = spec.slice(1);
  } else pattern = spec.replace(/^(\.\/)+/, "");
  if (origin.workspace && pattern.startsWith(`${origin.workspace}/`)) {
    pattern = pattern.slice(origin.workspace.length + 1);
  }
  if (!pattern) return unmapped("the path is empty");
  if (pattern.endsWith("/")) pattern += "**";
  // `**/name` is `name` in any folder: skiff's rule without a slash matches a base name.
  if (/^\*\*\/[^/]+$/.test(pattern) && !pattern.slice(3).includes("**")) {
    pattern = pattern.slice(3);
  }
  const lone = /(^|[^*])\*(?!\*)/.test(pattern);
  if (action === "allow" && pattern.includes("/") && lone) {
    return unmapped(
      "skiff's * crosses folders where Claude Code's stops at one, so the allow would cover more than written (write ** to cover the folders below)",
    );
  }
  if (action === "allow" && pattern.includes("?")) return wideQuestionMark();
  return { kind: "rule", key, pattern: pattern.replace(/\*\*+/g, "*") };
}

const HOST = /^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;

/** `domain:example.com` → the webfetch rule for that host (any path, http or https). */
function mapWebFetch(spec: string): ClaudeRuleMapping {
  const domain = /^domain:(.+)$/.exec(spec)?.[1].trim();
  if (domain === undefined) return unmapped('only "domain:host" is read for WebFetch');
  if (domain === "*") return { kind: "rule", key: "webfetch", pattern: "*" };
  if (!HOST.test(domain)) return unmapped(`"${domain}" is not a host name`);
  return { kind: "rule", key: "webfetch", pattern: domain.toLowerCase() };
}

/**
 * `mcp__server__tool` → `server_tool`; `mcp__server` and `mcp__server__*` →
 * `server_*`, which as an allow stops at that server's name
 * (src/permission/mcp_rule_keys.ts).
 */
function mapMcpRule(text: string, action: Action): ClaudeRuleMapping {
  const parsed = /^mcp__(.+?)(?:__(.+))?$/.exec(text);
  if (!parsed || text.includes("(")) return unmapped("expected mcp__server or mcp__server__tool");
  const [, server, tool] = parsed;
  if (action === "allow" && /[*?]/.test(server)) {
    return unmapped("a wildcard in the server's name would allow other servers' tools");
  }
  const serverPart = sanitizeName(server);
  if (tool === undefined || tool === "*") {
    return { kind: "rule", key: `${serverPart}_*`, pattern: "*" };
  }
  return { kind: "rule", key: `${serverPart}_${sanitizeName(tool)}`, pattern: "*" };
}
