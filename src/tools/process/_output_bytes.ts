/**
 * Whether a command's output was text. Output is decoded as UTF-8 for the
 * model, and bytes that are not UTF-8 become U+FFFD: without a word, the
 * model takes those for the output. This counts, as the output streams, the
 * bytes that were not text (invalid UTF-8, NUL) and words a note saying so
 * and how to see the real bytes.
 */

const REPLACEMENT = "\uFFFD";
/** U+FFFD as UTF-8: a command may print the character itself, which is text. */
const REPLACEMENT_BYTES = [0xef, 0xbf, 0xbd];

export class OutputBytes {
  #total = 0;
  #nul = 0;
  #replacementsShown = 0;
  #replacementsPrinted = 0;

  /** One decoded chunk and the bytes it came from. */
  add(text: string, bytes: Uint8Array): void {
    this.#total += bytes.length;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0) this.#nul++;
      else if (
        bytes[i] === REPLACEMENT_BYTES[0] && bytes[i + 1] === REPLACEMENT_BYTES[1] &&
        bytes[i + 2] === REPLACEMENT_BYTES[2]
      ) this.#replacementsPrinted++;
    }
    for (const char of text) if (char === REPLACEMENT) this.#replacementsShown++;
  }

  /** Bytes the decoder could not read as UTF-8 (each shown as U+FFFD). */
  get invalid(): number {
    return Math.max(0, this.#replacementsShown - this.#replacementsPrinted);
  }

  get binary(): boolean {
    return this.invalid > 0 || this.#nul > 0;
  }

  /**
   * The note for the model, "" for text. `spillFile`: where the bytes as
   * printed were kept, if anywhere.
   */
  note(spillFile?: string): string {
    if (!this.binary) return "";
    const parts = [
      ...(this.invalid ? [`${this.invalid} invalid, shown as ${REPLACEMENT}`] : []),
      ...(this.#nul ? [`${this.#nul} NUL`] : []),
    ];
    const see = spillFile
      ? `The bytes as printed are in ${spillFile}; see them with: xxd ${spillFile} | head`
      : "To see the bytes, run the command again piped into: xxd | head (or od -c | head)";
    return `[binary output: ${
      this.invalid + this.#nul
    } of ${this.#total} bytes are not UTF-8 text (${parts.join("; ")}). ${see}.]\n`;
  }
}
