/**
 * skiff's own entry point, for the child processes that run skiff itself
 * (the Landlock exec step, the command guard's replay step) and for the
 * probe cache's key. A compiled binary is its own entry point
 * (`Deno.execPath()`); in a checkout it is main.ts at the root. This module
 * sits two folders below the root, as the bundle's files do (dist/bundle,
 * dist/engine), so the same URL names the root's main.ts from both.
 */
export const ENTRY_URL: URL = new URL("../../main.ts", import.meta.url);
