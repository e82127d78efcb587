/**
 * The input's echo where nothing may be redrawn (TERM=dumb): the keys come
 * raw, so the terminal echoes nothing, and skiff writes the input as it
 * grows instead — appended only, never erased or moved: a message starts
 * on a new line after "> ", Backspace is "\b \b", a sent or cleared message
 * ends the line, any other change writes the whole text again on a new line. Typed text is shown, never obeyed.
 */
import { neutraliseControls } from "../../safe_text.ts";

export class AppendEcho {
  #shown = "";

  constructor(private readonly write: (text: string) => void) {}

  /** The input is now `text`: write what makes the screen show it. */
  show(text: string): void {
    const before = this.#shown;
    this.#shown = text;
    if (text === before) return;
    // A new message starts on a line of its own, after the prompt: what was
    // printed last may have left the cursor mid-line.
    if (!before) return this.#out(`\n> ${text}`);
    if (text.startsWith(before)) return this.#out(text.slice(before.length));
    if (text && before.startsWith(text)) {
      return this.write("\b \b".repeat([...before.slice(text.length)].length));
    }
    this.#out(text ? `\n> ${text}` : "\n");
  }

  /** Writes typed text shown, not obeyed, with the line endings raw mode needs. */
  #out(text: string): void {
    // Raw mode: a newline does not return the carriage by itself.
    this.write(neutraliseControls(text.replace(/\r?\n/g, "\n")).replace(/\n/g, "\r\n"));
  }
}
