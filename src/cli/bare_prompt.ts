/**
 * `skiff "explain this repo"`: a prompt given to skiff itself, with no
 * command before it. At a terminal it opens the chat with that first
 * message; headless (stdin or stdout not a terminal), or with `-p` / `--print`
 * as people type from habit, it runs as `skiff run` would. A first word that
 * is one slip away from a command's name (`skiff rn x`) is taken for a
 * mistyped command, not a prompt: sending it to the model would cost a
 * request and do something else than asked.
 */
import { RUN_OPTIONS } from "../boot/engine_options.ts";
import { UsageError } from "./exit_codes.ts";

/** How the root command reads its own flags; `RUN_ONLY_OPTIONS` are taken for a headless run. */
export const PRINT_FLAGS = "-p, --print";

/** `skiff run`'s flags the chat has no use for; the root accepts them for `-p` and headless runs. */
export const RUN_ONLY_OPTIONS = RUN_OPTIONS.filter((spec) =>
  !/--(model|agent|reasoning-effort|continue)\b/.test(spec.flags)
);

/** commander's attribute name for a flag spec ("--max-turns <n>" → "maxTurns"). */
function optionKey(flags: string): string {
  const long = /--([a-z][a-z-]*)/.exec(flags)![1];
  return long.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Edit distance (insert, delete, replace, swap of two neighbours). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}

/**
 * The command `operands` most likely meant, when they look like a command
 * line rather than a prompt: the prompt was not quoted as one argument (or is
 * one word), and its first word is one slip from a command's name (two for
 * names of five letters or more).
 */
export function mistypedCommand(operands: string[], names: string[]): string | undefined {
  const first = operands[0];
  if (!first || (operands.length === 1 && /\s/.test(first))) return undefined;
  if (!/^[a-z][a-z-]*$/.test(first)) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const allowed = Math.min(first.length, name.length) >= 5 ? 2 : 1;
    const away = distance(first, name);
    if (away <= allowed && (!best || away < best.distance)) best = { name, distance: away };
  }
  return best?.name;
}

/** The error for a mistyped command, saying how to send the words as a prompt instead. */
export function unknownCommand(operands: string[], suggestion: string): UsageError {
  return new UsageError(
    `unknown command '${operands[0]}' (did you mean ${suggestion}?)`,
    `To send it to the model as a prompt, quote it: skiff "${operands.join(" ")}"`,
  );
}

/** The headless forms: `-p` asked for it, or there is no terminal to chat at. */
export function runsHeadless(options: Record<string, unknown>, atTerminal: boolean): boolean {
  return options.print === true || !atTerminal;
}

/**
 * The root's options as `skiff run` reads them: `--resume <id>` names the
 * session to continue (`--session`); `--resume` alone would need the picker.
 */
export function headlessRunOptions(options: Record<string, unknown>): Record<string, unknown> {
  const { print: _print, resume, ...rest } = options;
  if (resume === true) {
    throw new UsageError(
      "--resume without an id needs a terminal to pick the session from.",
      'Name the session: skiff -p --resume <id> "…" (skiff sessions list shows them)',
    );
  }
  return typeof resume === "string" ? { ...rest, session: resume } : rest;
}

/** `skiff run`'s flags given to a chat that cannot use them: named, with the form that can. */
export function runOnlyFlagsGiven(options: Record<string, unknown>): string[] {
  return RUN_ONLY_OPTIONS.filter((spec) => options[optionKey(spec.flags)] !== undefined)
    .map((spec) => /--[a-z-]+/.exec(spec.flags)![0]);
}
