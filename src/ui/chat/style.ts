/**
 * skiff's own colours for the chat, or none. Every function takes text that
 * is already safe (see `safe_text.ts`) and only wraps it; with colour off it
 * returns the text unchanged, so NO_COLOR and TERM=dumb give plain text.
 */

export interface Style {
  readonly color: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text ? `\x1b[${open}m${text}\x1b[${close}m` : text);
}

const plain = (text: string) => text;

export function makeStyle(color: boolean): Style {
  if (!color) {
    return {
      color,
      bold: plain,
      dim: plain,
      italic: plain,
      underline: plain,
      red: plain,
      green: plain,
      yellow: plain,
      blue: plain,
      magenta: plain,
      cyan: plain,
    };
  }
  return {
    color,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
  };
}

/** Colour for the chat: off when NO_COLOR is set (no-color.org) or TERM is dumb. */
export function chatColour(
  env: { get(name: string): string | undefined } = Deno.env,
): boolean {
  try {
    return !env.get("NO_COLOR") && env.get("TERM") !== "dumb";
  } catch {
    return false;
  }
}

/** Whether the bottom region may be redrawn with cursor movement: not on a dumb terminal. */
export function canRedraw(env: { get(name: string): string | undefined } = Deno.env): boolean {
  try {
    return env.get("TERM") !== "dumb";
  } catch {
    return true;
  }
}
