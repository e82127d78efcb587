/**
 * The files a session changed, as its tool calls name them (write, edit,
 * apply_patch, file_delete, file_copy's destination). A handoff must list them: the model writing it may leave
 * some out, and the ones it leaves out are added back, as the user's words
 * are. A handoff that added them back carries them in its own section, so a
 * later handoff (a resumed session's too) still knows them.
 */
import type { ChatMessage } from "../../provider/types.ts";

/** Heading of the section that lists the changed files a handoff left out. */
export const CHANGED_FILES_HEADING = "## Files changed (from the tool calls)";

const PATCH_PATH = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/** Paths the calls in `messages` changed, in the order first changed; earlier handoffs' lists too. */
export function changedFiles(messages: readonly ChatMessage[]): string[] {
  const paths: string[] = [];
  const add = (path: unknown) => {
    if (typeof path === "string" && path.trim() && !paths.includes(path.trim())) {
      paths.push(path.trim());
    }
  };
  for (const message of messages) {
    if (message.role === "user") fromHandoff(message.content).forEach(add);
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      const input = parse(call.arguments);
      if (["write", "edit", "file_delete"].includes(call.name)) add(input?.file_path);
      if (call.name === "file_copy") add(input?.destination);
      if (call.name === "apply_patch" && typeof input?.patch === "string") {
        for (const match of input.patch.matchAll(PATCH_PATH)) add(match[1]);
      }
    }
  }
  return paths;
}

/** Which of `paths` `summary` does not name. */
export function missingFiles(summary: string, paths: readonly string[]): string[] {
  return paths.filter((path) => !summary.includes(path));
}

/** The section listing `paths`, for a handoff that left them out. */
export function changedFilesSection(paths: readonly string[]): string {
  return `${CHANGED_FILES_HEADING}\n${paths.map((path) => `- ${path}`).join("\n")}`;
}

/** The paths an earlier handoff's own section lists. */
function fromHandoff(content: string): string[] {
  const at = content.indexOf(CHANGED_FILES_HEADING);
  if (at < 0) return [];
  const lines = content.slice(at + CHANGED_FILES_HEADING.length).split("\n").slice(1);
  const paths: string[] = [];
  for (const line of lines) {
    if (!line.startsWith("- ")) break;
    paths.push(line.slice(2));
  }
  return paths;
}

function parse(raw: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw);
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}
