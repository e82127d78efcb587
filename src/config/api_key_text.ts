/**
 * What an API key may hold: visible ASCII, which any HTTP header carries. A
 * key copied from a document can come with a typographic character in it
 * ("…" for "..."), which no request can send: said when the config is read,
 * not after a request's retries. Its own module: the check of a config layer
 * without the schema (check.ts) uses it too, and must not load zod.
 */

/** Visible ASCII, one character or more. */
export const API_KEY_TEXT = /^[\x21-\x7e]+$/;

/** Why `key` is not an API key's text, naming the first character no header carries. */
export function apiKeyProblem(key: string): string {
  const chars = [...key];
  const index = chars.findIndex((char) => !API_KEY_TEXT.test(char));
  const char = chars[index] ?? "";
  const code = char.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
  return `holds ${JSON.stringify(char)} (U+${code}) at character ${index + 1}, ` +
    "which no HTTP header can carry: API keys are plain ASCII. Copy the key again " +
    '(a document or editor may have turned "..." into "…" or added a space)';
}
