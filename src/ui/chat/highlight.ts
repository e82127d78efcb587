/**
 * Syntax colour for fenced code, from `highlight.js` (its common set of
 * about forty languages). It costs around a hundred milliseconds to load, so
 * nothing loads it until the first fenced block with a language appears;
 * until it has loaded, code is shown plain. The code handed in is already
 * safe text; highlight.js returns HTML (`<span class="hljs-keyword">`),
 * turned here into skiff's colours with the entities put back.
 */

type Highlighter = (code: string, language: string) => string | undefined;

let highlighter: Highlighter | undefined;
let loading: Promise<void> | undefined;

const COLOURS: Record<string, string> = {
  keyword: "35",
  built_in: "36",
  type: "36",
  literal: "36",
  number: "33",
  string: "32",
  regexp: "32",
  comment: "2",
  meta: "2",
  title: "34",
  "title.function": "34",
  "title.class": "34",
  attr: "33",
  variable: "31",
  symbol: "33",
  section: "1",
  addition: "32",
  deletion: "31",
};

const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#x27;": "'",
  "&#39;": "'",
  "&amp;": "&",
};

/** highlight.js HTML as ANSI: nested spans keep the outer colour after an inner one ends. */
export function htmlToAnsi(html: string): string {
  const stack: string[] = [];
  return html.replace(
    /<span class="hljs-([^"]+)">|<\/span>|&(?:lt|gt|quot|amp|#x27|#39);/g,
    (match, scope: string | undefined) => {
      if (match.startsWith("&")) return ENTITIES[match];
      if (scope !== undefined) {
        const code = COLOURS[scope.split(" ")[0].replace(/_$/, "")] ?? "";
        stack.push(code);
        return code ? `\x1b[${code}m` : "";
      }
      const ended = stack.pop();
      if (!ended) return "";
      const outer = stack.findLast((code) => code);
      return `\x1b[0m${outer ? `\x1b[${outer}m` : ""}`;
    },
  );
}

/** Start loading highlight.js; resolves when `highlight` colours code. */
export function loadHighlighter(): Promise<void> {
  loading ??= import("./_highlight_js.ts").then((module) => {
    const hljs = module.default;
    highlighter = (code, language) => {
      if (!hljs.getLanguage(language)) return undefined;
      return htmlToAnsi(hljs.highlight(code, { language, ignoreIllegals: true }).value);
    };
  });
  return loading;
}

/**
 * `code` coloured as `language`, or undefined: the language is unknown, or
 * highlight.js is not loaded yet (this starts loading it).
 */
export function highlight(code: string, language: string): string | undefined {
  if (!highlighter) {
    loadHighlighter().catch(() => {});
    return undefined;
  }
  return highlighter(code, language);
}
