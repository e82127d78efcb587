/**
 * A Markdown fenced block that its own content cannot close. A fixed ```
 * fence ends at the first line of the content that starts with three
 * backticks, and whatever follows is read as Markdown again — a heading that
 * forges a turn of a transcript, an image fetched from anywhere. A fence
 * longer than every run of backticks inside can only be closed by itself.
 * Piped stdin, a compaction's verbatim words and session transcripts use it.
 */

/** Backticks, at least three and more than the longest run of backticks in `text`. */
export function fenceFor(text: string): string {
  let longest = 0;
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    run = text.charCodeAt(index) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return "`".repeat(Math.max(3, longest + 1));
}

/** `text` between two fences it cannot close; `info` follows the opening fence (`json`). */
export function fencedBlock(text: string, info = ""): string {
  const fence = fenceFor(text);
  return `${fence}${info}\n${text}\n${fence}`;
}
