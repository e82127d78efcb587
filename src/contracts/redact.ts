/**
 * Token-shaped secrets taken out of text skiff writes for others to read:
 * the answer file, the summary, `--json` events (a CI job uploads them) and
 * the view of a git config file a command is shown. What a token looks like
 * is known (GitHub's prefixes, a URL's password, an `Authorization` value);
 * the rest of the text is kept as it was, so the answer still reads.
 */

/** What a secret is replaced with. */
export const REDACTED = "***";

/** Characters that end a secret: space, quotes, a JSON escape, the URL's `@` and `/`. */
const SECRET_CHARS = String.raw`[^\s"'\\@/<>]+`;

const PATTERNS: readonly [RegExp, string][] = [
  // GitHub: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server (ghs_, the
  // Actions token), refresh (ghr_), fine-grained (github_pat_); GitLab's glpat-.
  [/(gh[pousr]_)[A-Za-z0-9]{16,}/g, `$1${REDACTED}`],
  [/(github_pat_)[A-Za-z0-9_]{16,}/g, `$1${REDACTED}`],
  [/(glpat-)[A-Za-z0-9_-]{16,}/g, `$1${REDACTED}`],
  // A password in a URL: https://user:secret@host, x-access-token:secret@host.
  [
    new RegExp(String.raw`(\b[a-z][a-z0-9+.-]*://[^\s"'\\:@/]*:)${SECRET_CHARS}@`, "gi"),
    `$1${REDACTED}@`,
  ],
  [new RegExp(String.raw`(x-access-token:)${SECRET_CHARS}@`, "gi"), `$1${REDACTED}@`],
  // An Authorization value (git's http.extraheader, a pasted curl line).
  [
    /((?:proxy-)?authorization\s*[:=]\s*(?:basic|bearer|token|digest)\s+)[A-Za-z0-9+/=._~-]+/gi,
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
