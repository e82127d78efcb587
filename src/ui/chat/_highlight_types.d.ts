/**
 * The part of highlight.js the chat uses. Its own type file references the
 * DOM library, which changes the types of Deno's web streams for every module
 * checked together with it; this declaration stands in for it.
 */
export interface HighlightResult {
  value: string;
}

export interface HighlightJs {
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals?: boolean }): HighlightResult;
}

declare const hljs: HighlightJs;
export default hljs;
