/**
 * The process tools: bash (one command, or one started in the background)
 * and process (reading and stopping background ones), with the table of
 * background processes a session owns.
 */
export { bashTool } from "./bash.ts";
export { processTool } from "./process.ts";
export { BackgroundProcesses } from "./background.ts";
