/**
 * skiff entry point. `--version` is answered before anything else is
 * imported, so the cheapest call costs what Deno's own start costs; every
 * other command loads the CLI lazily.
 */
import { VERSION } from "./src/version.ts";

if (import.meta.main) {
  const args = Deno.args;
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(`skiff ${VERSION}`);
    Deno.exit(0);
  }
  const { main } = await import("./src/cli/main.ts");
  Deno.exit(await main(args));
}
