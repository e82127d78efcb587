/**
 * Each command's module, loaded when that command runs, by a computed
 * specifier: Deno loads every statically written `import()` when it builds
 * the module graph, which would make every command pay for all of them
 * (scripts/compile.ts includes them from src/boot/lazy_modules.ts).
 */
import { mark } from "../boot/timings.ts";
import { importLazy } from "../boot/lazy_import.ts";
import type { LazyModule } from "../boot/lazy_modules.ts";

/** A command's module (`./run/run.ts`, next to this file), loaded now. */
export function loadCommandModule<Module>(specifier: string): Promise<Module> {
  mark("cli-parsed");
  const module = `src/cli/${specifier.replace(/^\.\//, "")}` as LazyModule;
  return importLazy<Module>(module).finally(() => mark("command-loaded"));
}
