/**
 * The hidden subcommand `__guard-replay <folder>` (main.ts): the command
 * guard's checks of a skiff that died mid-command, run by the watcher
 * (sandbox/guard/journal.ts) once skiff is gone. It waits a moment, so the
 * sandbox's own watchdogs have ended the command's processes, then reverts
 * against every journal nobody holds and prints what it did on stderr.
 */
import { CommandGuard } from "./command_guard.ts";
import { replayGuardJournals } from "./journal.ts";

/** How long the step waits first, so the sandbox's own watchdogs end the command. */
const SETTLE_MS = 300;

export async function runStep(args: string[]): Promise<number> {
  const [folder] = args;
  if (!folder) {
    console.error("usage: skiff __guard-replay <journal folder>");
    return 2;
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  for (const report of replayGuardJournals(folder, CommandGuard.replay)) console.error(report);
  return 0;
}
