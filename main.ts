/**
 * skiff entry point. `--version` is answered before anything else is
 * imported, so the cheapest call costs what Deno's own start costs; every
 * other command loads the CLI lazily.
 */
import { VERSION } from "./src/version.ts";

/**
 * Held in a variable on purpose: Deno loads every statically written dynamic
 * import when it builds the module graph, which would cost `--version` the
 * whole CLI. `deno task compile` includes this module explicitly.
 */
const CLI_MODULE = "./src/cli/main.ts";

if (import.meta.main) {
  const args = Deno.args;
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(`skiff ${VERSION}`);
    Deno.exit(0);
  }
  const { main } = await import(CLI_MODULE);
  Deno.exit(await main(args));
}
