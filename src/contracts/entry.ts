/**
 * skiff's own programs named by URL, in one place: its entry point, for the
 * child processes that run skiff itself (the Landlock exec step, the command
 * guard's replay step) and for the probe cache's key; the CLI's start and the
 * engine's Worker, which start-up loads by URL; and any other module started
 * by URL (a Worker's), through `fromRoot`. A compiled binary is its own entry point (`Deno.execPath()`);
 * in a checkout it is main.ts at the root. This module sits two folders
 * below the root, as the bundle's files do (dist/bundle, dist/engine), so
 * the same URL names the same file from both.
 */
export const ENTRY_URL: URL = new URL("../../main.ts", import.meta.url);

/** The CLI's start, from the sources (main.ts imports it, or the bundle's copy). */
export const CLI_START_SOURCE: URL = new URL("../../src/cli/start.ts", import.meta.url);

/** The engine's Worker module, from the sources (or the bundle's copy, src/boot/bundle.ts). */
export const ENGINE_WORKER_SOURCE: URL = new URL(
  "../../src/engine/worker_main.ts",
  import.meta.url,
);

/** One of skiff's files by its path from the root (`src/…`), from the sources or the bundle. */
export function fromRoot(file: string): URL {
  return new URL(`../../${file}`, import.meta.url);
}
