/**
 * Turns the fields of an agent — from markdown frontmatter or from the config
 * file — into a checked partial definition. Files written for other coding
 * agents are taken as they are: `tools` may be a map, a comma-separated
 * string or a list of names (then it is an allow list), capitalised tool
 * names are mapped to ours, and fields we have no use for are ignored.
 */
import type { AgentDefinition, AgentMode, PermissionConfig, ToolToggles } from "./types.ts";
import { mcpToolName, sanitizeName } from "../../contracts/mcp_names.ts";
import { isAction } from "../../permission/rules.ts";
import { permissionKeyProblem } from "../../config/permission_keys.ts";

/** Where a field's problem is reported: the file, and the line of a key. */
export interface FieldSource {
  file: string;
  lineOf(key: string): number;
}

/** A bad field; the loader turns it into a warning naming file and line. */
export class AgentFieldError extends Error {
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(`${file}:${line}: ${reason}`);
    this.name = "AgentFieldError";
  }
}

export type AgentOverride = Partial<Omit<AgentDefinition, "name" | "source">> & {
  disable?: boolean;
};

const MODES: AgentMode[] = ["primary", "subagent", "all"];
/** Model names some agent files use that mean "whatever the session uses". */
const SESSION_MODEL_ALIASES = new Set(["inherit", "sonnet", "opus", "haiku", "default"]);
/** Tool names written in other spellings, mapped to skiff's own. */
const TOOL_ALIASES: Record<string, string> = {
  multiedit: "edit",
  notebookedit: "edit",
  ls: "list",
  patch: "apply_patch",
  applypatch: "apply_patch",
  todo: "todowrite",
};

export function agentFields(
  data: Record<string, unknown>,
  where: FieldSource,
  warnings: string[],
): AgentOverride {
  const fail = (key: string, reason: string): never => {
    throw new AgentFieldError(where.file, where.lineOf(key), reason);
  };
  const result: AgentOverride = {};
  if (data.disable === true || data.disabled === true) result.disable = true;

  if (data.description !== undefined) {
    if (typeof data.description !== "string") fail("description", "description must be text");
    result.description = String(data.description).trim();
  }
  if (data.mode !== undefined) {
    if (!MODES.includes(data.mode as AgentMode)) {
      fail("mode", `mode must be one of ${MODES.join(", ")}; got ${JSON.stringify(data.mode)}`);
    }
    result.mode = data.mode as AgentMode;
  }
  if (data.model !== undefined && data.model !== null) {
    if (typeof data.model !== "string") fail("model", "model must be a model id (text)");
    const model = String(data.model).trim();
    if (SESSION_MODEL_ALIASES.has(model.toLowerCase())) {
      if (model.toLowerCase() !== "inherit" && model.toLowerCase() !== "default") {
        warnings.push(
          `${where.file}:${where.lineOf("model")}: model "${model}" is not a model id; ` +
            `the agent uses the session's model (set a full model id to change that)`,
        );
      }
    } else if (model) result.model = model;
  }
  if (data.temperature !== undefined) {
    const value = data.temperature;
    if (typeof value !== "number" || value < 0 || value > 2) {
      fail("temperature", `temperature must be a number from 0 to 2; got ${JSON.stringify(value)}`);
    }
    result.temperature = value as number;
  }
  for (const key of ["max_turns", "maxTurns", "max_steps", "maxSteps", "steps"]) {
    if (data[key] === undefined) continue;
    const value = data[key];
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
      fail(key, `${key} must be a whole number of at least 1; got ${JSON.stringify(value)}`);
    }
    result.maxTurns = value as number;
  }
  if (data.prompt !== undefined) {
    if (typeof data.prompt !== "string") fail("prompt", "prompt must be text");
    result.prompt = String(data.prompt);
  }
  if (data.tools !== undefined && data.tools !== null) {
    result.tools = toolToggles(data.tools, () => fail("tools", TOOLS_SHAPE));
  }
  for (const key of ["disallowedTools", "disallowed_tools"]) {
    if (data[key] === undefined) continue;
    const names = toolNameList(data[key], () => fail(key, `${key} must be a list of tool names`));
    result.tools = { ...result.tools };
    for (const name of names) result.tools[name] = false;
  }
  if (data.permission !== undefined && data.permission !== null) {
    result.permission = permissionConfig(data.permission, (reason) => fail("permission", reason));
  }
  return result;
}

const TOOLS_SHAPE =
  'tools must be a map of tool name → true/false (e.g. {"write": false, "mcp_*": false}), ' +
  "or a list of tool names to allow";

function toolToggles(value: unknown, bad: () => never): ToolToggles {
  if (typeof value === "object" && !Array.isArray(value)) {
    const toggles: ToolToggles = {};
    for (const [name, on] of Object.entries(value as Record<string, unknown>)) {
      if (typeof on !== "boolean") bad();
      toggles[name] = on as boolean;
    }
    return toggles;
  }
  // A list means "only these": everything off, then each named tool on.
  const toggles: ToolToggles = { "*": false };
  for (const name of toolNameList(value, bad)) toggles[name] = true;
  return toggles;
}

function toolNameList(value: unknown, bad: () => never): string[] {
  const items = typeof value === "string"
    ? value.split(/[,\s]+/)
    : Array.isArray(value) && value.every((item) => typeof item === "string")
    ? value as string[]
    : bad();
  return items.map((item) => item.trim()).filter(Boolean).map(ourToolName);
}

/** `Read` → `read`, `Bash(git diff:*)` → `bash`, `mcp__github__get_issue` → `github_get_issue`. */
export function ourToolName(written: string): string {
  const bare = written.replace(/\(.*\)$/, "").trim();
  const mcp = /^mcp__([^_]+(?:_[^_]+)*?)(?:__(.+))?$/.exec(bare);
  if (mcp) return mcp[2] ? mcpToolName(mcp[1], mcp[2]) : `${sanitizeName(mcp[1])}_*`;
  const lower = bare.toLowerCase();
  return TOOL_ALIASES[lower] ?? lower;
}

function permissionConfig(value: unknown, bad: (reason: string) => never): PermissionConfig {
  if (typeof value !== "object" || Array.isArray(value)) {
    bad(
      'permission must be a map like {"edit": "deny", "bash": {"*": "ask", "git status": "allow"}}',
    );
  }
  const config: PermissionConfig = {};
  for (const [key, rule] of Object.entries(value as Record<string, unknown>)) {
    const problem = permissionKeyProblem(key);
    if (problem) bad(`permission.${key}: ${problem}`);
    if (typeof rule === "string") {
      if (!isAction(rule)) {
        bad(`permission.${key} must be allow, ask or deny; got "${rule}"`);
      }
      config[key] = rule as PermissionConfig[string];
      continue;
    }
    if (typeof rule !== "object" || rule === null || Array.isArray(rule)) {
      bad(`permission.${key} must be allow/ask/deny or a map of pattern → allow/ask/deny`);
    }
    const patterns: Record<string, "allow" | "ask" | "deny"> = {};
    for (const [pattern, action] of Object.entries(rule as Record<string, unknown>)) {
      if (!isAction(action)) {
        bad(`permission.${key}["${pattern}"] must be allow, ask or deny`);
      }
      patterns[pattern] = action as "allow" | "ask" | "deny";
    }
    config[key] = patterns;
  }
  return config;
}
