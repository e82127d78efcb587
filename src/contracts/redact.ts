/**
 * Token-shaped secrets taken out of text skiff writes for others to read:
 * the answer file, the summary, `--json` events (a CI job uploads them) and
 * the view of a git config file a command is shown. What a token looks like
 * is known (GitHub's prefixes, a URL's password, an `Authorization` value);
 * the rest of the text is kept as it was, so the answer still reads.
 */

/** What a secret is replaced with. */
export const REDACTED = "***";

/**
 * A secret's characters (at most 256): up to a space, quote, JSON escape, `:`,
 * the URL's `@` or `/`. Every repeat is bounded and every pattern starts at a fixed text,
 * so a line of any length costs time in proportion to its length (a scheme
 * matched before `://` made `a.b-a.b-…` quadratic: 20 KB took 1.5 s).
 */
const SECRET_CHARS = String.raw`[^\s"'\\@/<>:]{1,256}`;

const PATTERNS: readonly [RegExp, string][] = [
  // GitHub: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server (ghs_, the
  // Actions token), refresh (ghr_), fine-grained (github_pat_); GitLab's glpat-.
  [/(gh[pousr]_)[A-Za-z0-9]{16,}/g, `$1${REDACTED}`],
  [/(github_pat_)[A-Za-z0-9_]{16,}/g, `$1${REDACTED}`],
  [/(glpat-)[A-Za-z0-9_-]{16,}/g, `$1${REDACTED}`],
  // A password in a URL: https://user:secret@host, x-access-token:secret@host.
  [
    // From the `://` on: a pattern starting at the scheme is tried at every word.
    new RegExp(String.raw`(://[^\s"'\\:@/]{0,256}:)${SECRET_CHARS}@`, "g"),
    `$1${REDACTED}@`,
  ],
  [new RegExp(String.raw`(x-access-token:)${SECRET_CHARS}@`, "gi"), `$1${REDACTED}@`],
  // An Authorization value (git's http.extraheader, a pasted curl line).
  [
    /((?:proxy-)?authorization[ \t]{0,16}[:=][ \t]{0,16}(?:basic|bearer|token|digest)[ \t]{1,16})[A-Za-z0-9+/=._~-]+/gi,
    `$1${REDACTED}`,
  ],
];

// No word boundary before a prefix: in a JSON line a token may follow an
// escape (`\nghs_…`), which reads as one word.

/** Cheap test first: most text holds none of the markers, and is returned as it is. */
const MARKERS = /gh[pousr]_|github_pat_|glpat-|:\/\/|x-access-token|authorization/i;

/** `text` with every token-shaped secret replaced by `***`. */
export function redactSecrets(text: string): string {
  if (!MARKERS.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
