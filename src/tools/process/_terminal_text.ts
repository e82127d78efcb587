/**
 * Command output as a terminal would leave it on screen, for a reader that
 * is not a terminal: colour and cursor escape sequences removed, and a line
 * redrawn with carriage returns (progress bars, spinners) reduced to what it
 * finally showed. Tools print colours and progress for people; to the model
 * they are noise that costs tokens and hides the text.
 */

/** CSI (colours, cursor moves), OSC (titles, links) and two-character escapes. */
// deno-lint-ignore no-control-regex -- matching the escape character is the point
const ESCAPES = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export function plainTerminalText(text: string): string {
  if (!text.includes("\x1b") && !text.includes("\r")) return text;
  return text.replace(ESCAPES, "").split("\n").map(lastRedraw).join("\n");
}

/** What a line redrawn with \r finally showed; a \r ending the line (CRLF) is dropped. */
function lastRedraw(line: string): string {
  const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
  const at = trimmed.lastIndexOf("\r");
  return at === -1 ? trimmed : trimmed.slice(at + 1);
}
