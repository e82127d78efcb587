/**
 * skiff never runs inside itself as an MCP server or its lister: a
 * configured server that is skiff (or a command that starts one) would
 * start its own servers again, and so on without end. Every process skiff
 * starts carries SKIFF_CHILD (src/sandbox/env.ts); `skiff mcp serve` and
 * `skiff mcp list` refuse where it is set. The marker only refuses: a
 * project that sets it can stop these two commands, never gain anything.
 */
import { SKIFF_CHILD_MARKER } from "../../sandbox/env.ts";
import { UsageError } from "../exit_codes.ts";

/** Throws a UsageError when this process was started by skiff (`command`: "mcp serve"). */
export function refuseInsideSkiff(
  command: string,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): void {
  if (!env(SKIFF_CHILD_MARKER)) return;
  // One line: a client often shows only the last line a failed server wrote.
  throw new UsageError(
    `skiff ${command} refused: this process was started by skiff (${SKIFF_CHILD_MARKER} is set), ` +
      "and skiff does not run inside itself; a skiff session has these tools already, so remove " +
      `the MCP server entry that runs skiff, or run skiff ${command} from your own shell.`,
  );
}
