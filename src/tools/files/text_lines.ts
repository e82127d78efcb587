/** Line endings and line counts of a text, as the file tools and the edit matcher see them. */

/** Text the model sent, brought to LF so it compares with `TextDocument.text`. */
export function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

/** Lines of an LF text as an editor counts them: "a\nb\n" has 2, "" has 0. */
export function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}
