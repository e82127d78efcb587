/**
 * `@path` in a message: Tab completes the word under the cursor against the
 * workspace's files (fuzzy, .gitignore respected), and on sending each
 * mention's content goes into the prompt. The content is read through the
 * engine's own `read` tool, so the read policy decides: a file the policy
 * refuses is named in the prompt, not inlined.
 */

/**
 * Files of the workspace, relative, .gitignore respected: the search tools'
 * own walk (src/tools/search/file_list.ts), loaded at the first completion.
 * No program runs: `git ls-files` would obey the repository's config
 * (`core.fsmonitor` runs a program), and this side of skiff is not sandboxed.
 */
export async function workspaceFiles(workspace: string, limit = 20_000): Promise<string[]> {
  const { listWorkspaceFiles } = await import("../../../tools/search/file_list.ts");
  try {
    return await listWorkspaceFiles(workspace, limit);
  } catch {
    return []; // an unreadable workspace: nothing to complete
  }
}

/**
 * How well `query` matches `candidate` as a subsequence; undefined: no
 * match. Higher is better: consecutive letters, a match in the file name,
 * and shorter paths score more.
 */
export function fuzzyScore(query: string, candidate: string): number | undefined {
  if (!query) return 0;
  const lowerQuery = query.toLowerCase();
  const lower = candidate.toLowerCase();
  const nameStart = lower.lastIndexOf("/") + 1;
  let score = 0;
  let position = -1;
  let run = 0;
  for (const letter of lowerQuery) {
    const found = lower.indexOf(letter, position + 1);
    if (found < 0) return undefined;
    run = found === position + 1 ? run + 1 : 0;
    score += 1 + run * 2 + (found >= nameStart ? 1 : 0);
    position = found;
  }
  if (lower.includes(lowerQuery)) score += 10;
  return score - candidate.length / 100;
}

/** The best `limit` files for `query`, best first. */
export function bestMatches(query: string, files: string[], limit = 8): string[] {
  const scored: [string, number][] = [];
  for (const file of files) {
    const score = fuzzyScore(query, file);
    if (score !== undefined) scored.push([file, score]);
  }
  return scored.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit)
    .map(([file]) => file);
}

/** The `@word` ending at `cursor`, if the cursor is in one. */
export function mentionAt(
  text: string,
  cursor: number,
): { start: number; query: string } | undefined {
  const match = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, cursor));
  if (!match) return undefined;
  return { start: cursor - match[2].length - 1, query: match[2] };
}

/** Every `@path` in a message, in order, each once. */
export function mentionsIn(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    found.add(match[1].replace(/[.,;:!?)]+$/, ""));
  }
  return [...found];
}

export type ReadFile = (
  path: string,
) => Promise<{ ok: true; text: string } | { ok: false; why: string }>;

/** What a mention names in the workspace. */
export type MentionKind = "file" | "folder" | "missing";

/** A mention of a file name (a slash, or a dot and an extension), not a handle such as @alice. */
function looksLikePath(mention: string): boolean {
  return mention.includes("/") || /\.[A-Za-z0-9]+$/.test(mention);
}

/**
 * The prompt with the content of each mentioned file appended. A mention
 * that is not a file is left as typed: a folder, or a file name that is not
 * there, with a note for the person (`unattached`); a handle without one.
 */
export async function expandMentions(
  text: string,
  kindOf: (path: string) => MentionKind,
  read: ReadFile,
): Promise<{
  prompt: string;
  attached: string[];
  refused: { path: string; why: string }[];
  unattached: { path: string; why: string }[];
}> {
  const attached: string[] = [];
  const refused: { path: string; why: string }[] = [];
  const unattached: { path: string; why: string }[] = [];
  const blocks: string[] = [];
  for (const mention of mentionsIn(text)) {
    const kind = kindOf(mention);
    if (kind === "folder") {
      unattached.push({ path: mention, why: "a folder; mention the files in it (@folder/file)" });
      continue;
    }
    if (kind === "missing") {
      if (looksLikePath(mention)) {
        unattached.push({ path: mention, why: "no such file in the workspace" });
      }
      continue;
    }
    const result = await read(mention);
    if (result.ok) {
      attached.push(mention);
      blocks.push(`<file path="${mention}">\n${result.text}\n</file>`);
    } else {
      refused.push({ path: mention, why: result.why });
      blocks.push(`(The file ${mention} was mentioned but not attached: ${result.why})`);
    }
  }
  const prompt = blocks.length ? `${text}\n\n${blocks.join("\n\n")}` : text;
  return { prompt, attached, refused, unattached };
}
