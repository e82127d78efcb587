/**
 * The four agents skiff ships with. `build` does the work, `plan` looks
 * without touching, and the two subagents are what `task` hands work to.
 * A user file or config entry with the same name is layered on top of these.
 */
import type { AgentDefinition, PermissionAction } from "./types.ts";
import { WRITING_KEYS } from "../../config/permission_keys.ts";

/**
 * Bash commands `plan` may run: ones that only look. Everything else is denied.
 * The deny entries after the allows close options that would write files or
 * run other programs from an otherwise read-only command.
 */
const READ_ONLY_BASH: Record<string, PermissionAction> = {
  "*": "deny",
  "git status *": "allow",
  "git diff *": "allow",
  "git log *": "allow",
  "git show *": "allow",
  "git blame *": "allow",
  "git branch": "allow",
  "git rev-parse *": "allow",
  "git ls-files *": "allow",
  "ls *": "allow",
  "pwd": "allow",
  "cat *": "allow",
  "head *": "allow",
  "tail *": "allow",
  "wc *": "allow",
  "rg *": "allow",
  "grep *": "allow",
  "tree *": "allow",
  "file *": "allow",
  "stat *": "allow",
  "du *": "allow",
  "which *": "allow",
  "git *--output*": "deny",
  "git *--ext-diff*": "deny",
  "rg *--pre*": "deny",
};

/**
 * Plan's rules: every key under which a call changes the workspace is denied
 * (src/config/permission_keys.ts `WRITING_KEYS`), bash but for the commands
 * above. A key added to that list is denied here with no change to this file.
 */
function readOnlyPermission(): AgentDefinition["permission"] {
  const permission: AgentDefinition["permission"] = {};
  for (const key of WRITING_KEYS) permission[key] = key === "bash" ? { ...READ_ONLY_BASH } : "deny";
  return permission;
}

const PLAN_PROMPT = `You are in plan mode. Read, search and think; do not change anything.
Files cannot be edited or written, and bash runs only commands that look (git status,
git diff, git log, ls, cat, rg, grep and the like). Study the code, then answer with a
concrete plan: the files to change, what to change in each and why, and how to check
the result. Say what you are unsure of.`;

const GENERAL_PROMPT = `You are a subagent working on one task handed to you by another agent.
You see only the task below, not the conversation that led to it. Do the task fully
with the tools you have, then end with a short report: what you found or changed, the
files involved (with paths), and anything left undone. The report is all the other
agent will read.`;

const EXPLORE_PROMPT = `You are a fast, read-only explorer. Find what is asked for in the
code base using glob, grep, list and read; fetch a web page only when the answer is not
in the code. Search broadly first, then read the few files that matter. Answer with the
facts found and their locations as path:line, briefly. You cannot change anything.`;

export function builtinAgents(): AgentDefinition[] {
  return [
    {
      name: "build",
      description: "The default agent: reads, edits and runs code with every tool allowed.",
      mode: "primary",
      tools: {},
      permission: {},
      source: "builtin",
    },
    {
      name: "plan",
      description: "Read-only: studies the code and proposes a plan without editing anything.",
      mode: "primary",
      prompt: PLAN_PROMPT,
      tools: {
        edit: false,
        write: false,
        apply_patch: false,
        file_copy: false,
        file_delete: false,
      },
      permission: readOnlyPermission(),
      source: "builtin",
    },
    {
      name: "general",
      description:
        "General-purpose subagent for multi-step work: research, edits across files, running commands.",
      mode: "subagent",
      prompt: GENERAL_PROMPT,
      tools: { todowrite: false, todoread: false, task: false },
      permission: {},
      source: "builtin",
    },
    {
      name: "explore",
      description:
        "Fast read-only subagent for finding files, symbols and how something works in the code base.",
      mode: "subagent",
      prompt: EXPLORE_PROMPT,
      tools: {
        "*": false,
        read: true,
        grep: true,
        glob: true,
        list: true,
        webfetch: true,
      },
      permission: { edit: "deny" },
      source: "builtin",
    },
  ];
}
