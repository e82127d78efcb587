/**
 * The CLI's start, loaded by main.ts from the bundle or from the sources
 * (src/boot/bundle.ts), once main.ts has started the engine's Worker
 * (src/boot/prewarm.ts): the command line's entry loads and runs. Its module
 * graph stays small: everything else is loaded lazily.
 */
import { buildState } from "../boot/bundle.ts";
import { mark } from "../boot/timings.ts";
import { importLazy } from "../boot/lazy_import.ts";
import { hideSecretsFromEnviron } from "../sandbox/environ_scrub.ts";

/** Runs the command line `args`; resolves to the exit code. */
export async function start(args: string[]): Promise<number> {
  // Credentials out of /proc/<pid>/environ, before the session starts a child.
  hideSecretsFromEnviron();
  if (buildState().kind === "fresh") mark("bundle");
  const { main } = await importLazy<typeof import("./main.ts")>("src/cli/main.ts");
  return await main(args);
}
