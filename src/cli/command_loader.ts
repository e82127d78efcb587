/**
 * Each command's module, loaded when that command runs, by a computed
 * specifier: Deno loads every statically written `import()` when it builds
 * the module graph, which would make every command pay for all of them
 * (scripts/compile.ts includes them from src/boot/lazy_modules.ts).
 *
 * The module of the command the arguments most likely run (`run`, `tool`,
 * the chat) starts loading before the command line is parsed, so its graph
 * loads while commander does; parsing still decides what runs, and a guess
 * that parsing overrules (a usage error) only loaded a module for nothing.
 */
import { mark } from "../boot/timings.ts";
import { engineCommandOf } from "../boot/prewarm.ts";
import { importLazy } from "../boot/lazy_import.ts";
import type { LazyModule } from "../boot/lazy_modules.ts";

const started = new Map<string, Promise<unknown>>();

/** Each engine command's module, as src/cli/engine_commands.ts and program.ts load it. */
const COMMAND_MODULES = { run: "./run/run.ts", tool: "./tool.ts", chat: "./chat/chat.ts" } as const;

/** The module `args` will most likely load (`./run/run.ts`), if it is worth starting early. */
export function likelyCommandModule(args: readonly string[]): string | undefined {
  const command = engineCommandOf(args);
  return command === undefined ? undefined : COMMAND_MODULES[command];
}

/**
 * Starts loading (and evaluating) the likely command's module now; an error
 * is reported where the command awaits it.
 */
export function preloadCommandModule(args: readonly string[]): void {
  const specifier = likelyCommandModule(args);
  if (specifier === undefined) return;
  const module = fromRoot(specifier);
  const loading = importLazy(module);
  loading.catch(() => {});
  started.set(module, loading);
}

/** A command's module: the one started early, or loaded now. */
export function loadCommandModule<Module>(specifier: string): Promise<Module> {
  mark("cli-parsed");
  const module = fromRoot(specifier);
  const loading = started.get(module) ?? importLazy(module);
  started.delete(module);
  return (loading as Promise<Module>).finally(() => mark("command-loaded"));
}

/** `./run/run.ts` (next to this file) as the path from the root `importLazy` takes. */
function fromRoot(specifier: string): LazyModule {
  return `src/cli/${specifier.replace(/^\.\//, "")}` as LazyModule;
}
