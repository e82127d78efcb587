/**
 * Text from the model or a tool, made safe to write to a terminal. A
 * terminal obeys control characters instead of showing them: an escape
 * sequence can erase a line, move the cursor, retitle the window or clear
 * the screen, a carriage return can overwrite what came before, and a bidi
 * override can reverse what follows — so an approval prompt could read
 * `git status` for a command that deletes files. Here each such character is
 * shown as an escape a person can read (`\x1b`, `\r`, `\u202e`) and nothing
 * is acted on. Tab and newline stay as they are.
 *
 * Applied at the terminal boundary only (the text renderer, the approval
 * prompt, `sessions`, `undo`), to the untrusted text before skiff adds any
 * colour of its own. Stored data and JSON Lines keep the text as it was: a
 * program reads them, and JSON escapes the C0 controls anyway.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings, overrides and isolates. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  if (char === "\r") return "\\r";
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control character a terminal would act on written out visibly instead. */
export function neutraliseControls(text: string): string {
  return text.replace(CONTROLS, visible);
}
