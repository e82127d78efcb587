/**
 * The one way to import a lazily loaded module (src/boot/lazy_modules.ts):
 * by a specifier computed at run time, so that Deno's module graph, built
 * before anything runs, does not hold it. In the bundle, scripts/build.ts
 * puts a module in place of this one that writes each of these imports out,
 * so that the bundler makes each a chunk loaded when first imported.
 */
import type { LazyModule } from "./lazy_modules.ts";

/** Imports `module`, a path from the repository root. */
export function importLazy<Module>(module: LazyModule): Promise<Module> {
  return import(new URL(`../../${module}`, import.meta.url).href);
}
