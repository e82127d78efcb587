/**
 * highlight.js (its common languages) under our own declaration of the few
 * calls the chat makes: see _highlight_types.d.ts for why. Loaded lazily by
 * highlight.ts at the first fenced code block.
 */
// @ts-types="./_highlight_types.d.ts"
export { default } from "highlight.js/lib/common";
