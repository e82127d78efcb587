/**
 * Start-up machinery, in one place: what makes a start of skiff cost little
 * more than Deno's own (docs/performance.md has what each piece buys).
 * - The bundle (`bundle.ts`): `deno task build` (scripts/build.ts) bundles
 *   the CLI into dist/bundle and the engine's Worker into dist/engine; a
 *   start uses them when the stamp of every source still matches, else the
 *   sources. The decision is made once per process and kept on the global
 *   object, since the bundle holds its own copy of this module.
 * - The prewarmed engine (`prewarm.ts`): main.ts starts the engine's Worker
 *   before the CLI loads, with the permissions remembered from the last run
 *   of the same command in the same folder; the host uses it only when the
 *   permissions derived now are the same (src/lib/permission_key.ts).
 * - Lazy imports (`lazy_import.ts`, `lazy_modules.ts`): each command's
 *   module is imported by a computed specifier, so Deno does not load every
 *   command with the module graph; the list feeds the compiled binary, the
 *   bundle and the layer check.
 * - Phase timings (`timings.ts`): `SKIFF_TIMINGS=1` prints them on stderr.
 */
export { startModule } from "./bundle.ts";
export { prewarmEngine, settlePrewarm } from "./prewarm.ts";
export { importLazy } from "./lazy_import.ts";
export { LAZY_LOADED_MODULES } from "./lazy_modules.ts";
export { mark, reportTimings } from "./timings.ts";
