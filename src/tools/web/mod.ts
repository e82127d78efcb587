/** The web tool: webfetch (one URL, turned into text or markdown). */
export { webfetchTool } from "./webfetch.ts";
