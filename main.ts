/**
 * skiff entry point. `--version` is answered before anything else is
 * imported, so the cheapest call costs what Deno's own start costs; every
 * other command loads the CLI lazily: from the bundle when a build matching
 * the sources is there (`deno task build`, src/boot/bundle.ts), else from
 * the sources. Both start at src/cli/start.ts.
 */
import { VERSION } from "./src/version.ts";
import { startModule } from "./src/boot/bundle.ts";
import { prewarmEngine, settlePrewarm } from "./src/boot/prewarm.ts";

/**
 * Hidden subcommands: steps skiff starts as its own child process (`skiff
 * __name …`), dispatched before anything else is loaded. Each module exports
 * `runStep(args): number | never | Promise<number>`; scripts/compile.ts
 * includes every one (held in variables: Deno loads every statically written
 * dynamic import when it builds the module graph).
 */
export const HIDDEN_STEPS: ReadonlyMap<string, string> = new Map([
  ["__landlock-exec", "./src/sandbox/landlock/exec.ts"],
  ["__guard-replay", "./src/sandbox/guard/replay.ts"],
]);

if (import.meta.main) {
  const args = Deno.args;
  const step = HIDDEN_STEPS.get(args[0] ?? "");
  if (step !== undefined) {
    const { runStep } = await import(step);
    Deno.exit(await runStep(args.slice(1)));
  }
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(`skiff ${VERSION}`);
    Deno.exit(0);
  }
  // The engine's Worker starts now, beside the CLI's own start (src/boot/prewarm.ts).
  prewarmEngine(args);
  const module = startModule(); // checks the build (src/boot/bundle.ts)
  settlePrewarm(args);
  // Typed here, not with `typeof import()`: `deno info` would count the CLI in this graph.
  const { start }: { start(args: string[]): Promise<number> } = await import(module.href);
  Deno.exit(await start(args));
}
