/**
 * The command line's entry, loaded lazily by main.ts: starts loading the
 * module of the command the arguments most likely run, then the parser
 * (commander, src/cli/program.ts), so the two graphs load side by side
 * instead of one after the other (src/cli/command_loader.ts). Returns the
 * exit code; the entry point exits with it.
 */
import { preloadCommandModule } from "./command_loader.ts";

/**
 * Computed on purpose, like the commands' modules: a written-out `import()`
 * is loaded with this module's graph, before the command's starts loading.
 */
const PROGRAM_MODULE = "./program.ts";

export async function main(args: string[]): Promise<number> {
  // `deno task skiff` runs in the repository; INIT_CWD is where the user was.
  const initCwd = Deno.env.get("INIT_CWD");
  if (initCwd) {
    try {
      Deno.chdir(initCwd);
    } catch { /* keep the current folder */ }
  }
  preloadCommandModule(args);
  const program: typeof import("./program.ts") = await import(
    new URL(PROGRAM_MODULE, import.meta.url).href
  );
  return await program.runProgram(args);
}
