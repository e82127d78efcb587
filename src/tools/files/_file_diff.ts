/**
 * The unified diff of a file change, for the event stream and the stored
 * part (never for the model, which wrote the change and knows it). Bounded:
 * a rewrite of a huge file gets counts instead of a diff nobody reads, and
 * never a diff that takes seconds to compute.
 */
import { structuredPatch } from "diff";

export interface FileDiff {
  /** Unified diff text; empty when nothing changed or when too large to compute. */
  diff: string;
  additions: number;
  deletions: number;
  /** True when the diff was skipped or cut for size. */
  truncated: boolean;
}

/** Lines of diff text kept on an event. */
export const DIFF_MAX_LINES = 2000;

function lineList(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Counts without a diff: lines outside the common head and tail. */
function roughCounts(before: string, after: string): { additions: number; deletions: number } {
  const a = lineList(before);
  const b = lineList(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  return { deletions: a.length - head - tail, additions: b.length - head - tail };
}

/**
 * Diff `before` → `after` (LF texts; null before = a new file, null after =
 * deleted). `fromPath` names the old side when the file was moved.
 */
export function fileDiff(
  displayPath: string,
  before: string | null,
  after: string | null,
  fromPath: string = displayPath,
): FileDiff {
  const oldText = before ?? "";
  const newText = after ?? "";
  if (oldText === newText) return { diff: "", additions: 0, deletions: 0, truncated: false };
  const patch = structuredPatch(
    before === null ? "/dev/null" : `a/${fromPath}`,
    after === null ? "/dev/null" : `b/${displayPath}`,
    oldText,
    newText,
    "",
    "",
    { context: 3, maxEditLength: 1000, timeout: 250 },
  );
  if (!patch) return { diff: "", ...roughCounts(oldText, newText), truncated: true };
  const out = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  let additions = 0;
  let deletions = 0;
  for (const hunk of patch.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
      out.push(line);
    }
  }
  const truncated = out.length > DIFF_MAX_LINES;
  const kept = truncated
    ? [...out.slice(0, DIFF_MAX_LINES), `… ${out.length - DIFF_MAX_LINES} more diff lines`]
    : out;
  return { diff: kept.join("\n") + "\n", additions, deletions, truncated };
}
