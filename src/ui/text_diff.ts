/**
 * The diff of an edit, write or apply_patch, as text mode shows it under the
 * tool line: coloured at a terminal, plain in a log, cut after a number of
 * lines with a count of what was left out. The diff holds text the model
 * wrote, so each line is made safe (`neutraliseControls`) before any colour
 * of skiff's own is added.
 */
import { neutraliseControls } from "./safe_text.ts";

/** Lines of a diff shown under its tool line; the rest is counted. @default 60 */
export const DIFF_LINES_SHOWN = 60;

const COLOURS = {
  added: "\x1b[32m",
  removed: "\x1b[31m",
  hunk: "\x1b[36m",
  header: "\x1b[1m",
  reset: "\x1b[0m",
};

function colourOf(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return COLOURS.header;
  if (line.startsWith("+")) return COLOURS.added;
  if (line.startsWith("-")) return COLOURS.removed;
  if (line.startsWith("@@")) return COLOURS.hunk;
  return "";
}

export interface DiffBlockOptions {
  colour: boolean;
  /** @default DIFF_LINES_SHOWN */
  maxLines?: number;
  /** Named in the note on lines left out, so a person knows where the rest is. */
  sessionId?: string;
}

/** `diff` indented under its tool line, ending in a newline; "" for no diff. */
export function diffBlock(diff: string, options: DiffBlockOptions): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  if (!diff.trim()) return "";
  const max = options.maxLines ?? DIFF_LINES_SHOWN;
  const shown = lines.slice(0, max).map((raw) => {
    const line = neutraliseControls(raw);
    const colour = options.colour ? colourOf(raw) : "";
    return `  ${colour}${line}${colour ? COLOURS.reset : ""}`;
  });
  const left = lines.length - shown.length;
  if (left > 0) {
    const where = options.sessionId
      ? ` (all of it: skiff sessions export ${options.sessionId})`
      : "";
    shown.push(`  … ${left} more diff line${left === 1 ? "" : "s"}${where}`);
  }
  return shown.join("\n") + "\n";
}

/** Colour for a stream: only a terminal, and never when NO_COLOR is set (no-color.org). */
export function wantsColour(stream: { isTerminal?: () => boolean }): boolean {
  try {
    return Boolean(stream.isTerminal?.()) && !Deno.env.get("NO_COLOR");
  } catch {
    return false;
  }
}
