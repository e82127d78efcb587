/**
 * The command line's entry, loaded lazily by main.ts. `skiff run`, `skiff
 * tool` and the chat in their plain forms are read without commander
 * (src/boot/engine_options.ts); any other command line goes to the parser,
 * src/cli/program.ts (commander), loaded by a computed specifier. Returns the
 * exit code; the entry point exits with it.
 */
import { mark, reportTimings } from "../boot/timings.ts";
import { runEngineCommand } from "./engine_commands.ts";
import { parseEngineCommand } from "../boot/engine_options.ts";
import { reportFatal } from "./report_fatal.ts";
import { importLazy } from "../boot/lazy_import.ts";

mark("cli-loaded");

export async function main(args: string[]): Promise<number> {
  // `deno task skiff` runs in the repository; INIT_CWD is where the user was.
  const initCwd = Deno.env.get("INIT_CWD");
  if (initCwd) {
    try {
      Deno.chdir(initCwd);
    } catch { /* keep the current folder */ }
  }
  const parsed = parseEngineCommand(args);
  if (parsed) {
    try {
      return await runEngineCommand(parsed);
    } catch (error) {
      return reportFatal(error);
    } finally {
      mark("exit");
      reportTimings();
    }
  }
  // Computed (importLazy), like the commands' modules: a written-out `import()`
  // is loaded with this module's graph, whatever the command line.
  const program = await importLazy<typeof import("./program.ts")>("src/cli/program.ts");
  return await program.runProgram(args);
}
