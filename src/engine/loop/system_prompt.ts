/**
 * The system prompt: a short statement of how skiff works (with a note for a
 * model family that needs one, model_families.ts), the facts about
 * this workspace (path, date, platform, git state), the agent's own prompt,
 * and the instruction files the user keeps for agents (AGENTS.md, falling back
 * to CLAUDE.md, from the workspace up to the git root, plus the global one),
 * and last what harness memory holds for this workspace.
 */
import * as path from "../../lib/path.ts";
import {
  instructionFileWarning,
  readRegularTextFileSync,
  realPathInside,
} from "../../config/regular_file.ts";
import { findGitRoot } from "../../lib/git_root.ts";
import { promptNoteFor, type TextToolCallSetting } from "../../provider/dialects/model_families.ts";
import { modelEntry } from "../../provider/dialects/model_settings.ts";

const BASE_PROMPT = `You are skiff, a coding agent working in the user's workspace through tools.

How to work:
- Read before you change: edit and write refuse a file you have not read in this session, or that changed since you read it.
- Prefer edit (exact, unique old_string) for changes to existing files; write for new files or full rewrites; apply_patch for coordinated changes across files.
- Search with grep and glob instead of guessing paths. Run commands with bash to build, test and inspect.
- A tool error tells you what went wrong and what to do next: read it and correct course. An error with code "denied" is final; do not retry the same call.
- Keep going until the task is done, then answer briefly: what you changed, what you verified, anything left. No filler.`;

export interface PromptFacts {
  workspace: string;
  date: Date;
  platform: string;
  gitSummary: string | null;
  instructions: { path: string; text: string }[];
  agentPrompt?: string;
  /** What harness memory holds for this workspace (src/engine/loop/memory_prompt.ts). */
  memory?: string | null;
  /** The model the prompt is for: its family may add a note. */
  model?: string;
  /** `provider.models`, by id or pattern: a model's `textToolCalls` decides its note. */
  modelSettings?: Record<string, { textToolCalls?: TextToolCallSetting }>;
}

/** The whole system prompt from `facts`. */
export function renderSystemPrompt(facts: PromptFacts): string {
  const lines = [BASE_PROMPT];
  const note = facts.model
    ? promptNoteFor(facts.model, modelEntry(facts.model, facts.modelSettings)?.textToolCalls)
    : undefined;
  if (note) lines.push(`- ${note}`);
  if (facts.agentPrompt?.trim()) {
    lines.push("", "<agent_instructions>", facts.agentPrompt.trim(), "</agent_instructions>");
  }
  lines.push(
    "",
    "<environment>",
    `Workspace: ${facts.workspace}`,
    `Date: ${facts.date.toISOString().slice(0, 10)}`,
    `Platform: ${facts.platform}`,
    `Git: ${facts.gitSummary ?? "not a git repository"}`,
    "</environment>",
  );
  for (const file of facts.instructions) {
    lines.push("", `<instructions from="${file.path}">`, file.text.trim(), "</instructions>");
  }
  if (facts.memory) lines.push("", "<memory>", facts.memory, "</memory>");
  return lines.join("\n");
}

/**
 * The file's text; null when absent or unreadable. Only a regular file is
 * read, up to MAX_INSTRUCTION_BYTES: a FIFO there hung skiff at start.
 * `warn` hears of one skipped or cut, by the name it was found under.
 */
function readIfPresent(file: string, warn: (message: string) => void, shown = file): string | null {
  try {
    const read = readRegularTextFileSync(file);
    const warning = instructionFileWarning(shown, read);
    if (warning) warn(warning);
    return read.kind === "text" ? read.text : null;
  } catch {
    return null;
  }
}

/** A project's instruction file, read only where it really lies inside `root` (`realPathInside`). */
function readProjectFile(
  file: string,
  root: string,
  warn: (message: string) => void,
): string | null {
  const real = realPathInside(file, root);
  return real === null ? null : readIfPresent(real, warn, file);
}

/**
 * AGENTS.md (or CLAUDE.md when a folder has no AGENTS.md) in every folder from
 * the git root down to the workspace, outermost first, after the global file.
 * A project file that is a link out of the git root is skipped (the global
 * one is the user's own and may live anywhere).
 */
export function collectInstructions(
  workspace: string,
  configDir: string,
  warn: (message: string) => void = () => {},
): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const global = path.join(configDir, "AGENTS.md");
  const globalText = readIfPresent(global, warn);
  if (globalText) found.push({ path: global, text: globalText });

  const root = findGitRoot(workspace) ?? workspace;
  let realRoot = root;
  try {
    realRoot = Deno.realPathSync(root);
  } catch { /* judged as given */ }
  const folders: string[] = [];
  for (let dir = workspace;; dir = path.dirname(dir)) {
    folders.unshift(dir);
    if (dir === root || path.dirname(dir) === dir) break;
  }
  for (const folder of folders) {
    for (const name of ["AGENTS.md", "CLAUDE.md"]) {
      const file = path.join(folder, name);
      const text = readProjectFile(file, realRoot, warn);
      if (text) {
        found.push({ path: file, text });
        break;
      }
    }
  }
  return found;
}
