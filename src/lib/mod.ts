/**
 * Helpers that know nothing of skiff: they import nothing from src/ outside
 * this folder, so any layer may use them and none of them needs a test
 * double. What is here:
 * - POSIX paths (`path.ts`): the same functions on the terminal side and in
 *   the engine's Worker, without loading node:path;
 * - SHA-256 (`sha256.ts`), synchronous, for the engine's snapshot digests;
 * - the temp-file-and-rename writer every file write of skiff ends in
 *   (`atomic_write.ts`);
 * - a child's output split into lines, linear and bounded (`line_reader.ts`);
 * - timers that keep no process alive (`background_ticks.ts`) and the full
 *   garbage collections skiff asks for (`collect.ts`);
 * - a Markdown fence its content cannot close (`markdown_fence.ts`) and a
 *   Deno permission descriptor compared whole (`permission_key.ts`);
 * - waiting for SIGINT or SIGTERM, for a command that serves until told to stop
 *   (`until_stopped.ts`).
 * Code imports the module it needs, not this one: a start loads only what it uses.
 */
export { writeFileAtomicSync } from "./atomic_write.ts";
export { lineReader } from "./line_reader.ts";
export { fencedBlock } from "./markdown_fence.ts";
export { permissionKey } from "./permission_key.ts";
export { untilStopped } from "./until_stopped.ts";
export { sha256Hex } from "./sha256.ts";
