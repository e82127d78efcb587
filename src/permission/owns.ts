/**
 * The `owns` narrowing of a subagent or a batch task: its calls may write
 * only the paths it owns, and may run commands only where bubblewrap holds
 * them to those paths too. A rule of the gate's evaluation that no other
 * rule, answer or flag lifts: the task reports anything else back instead.
 */
import type { Access } from "../contracts/tool_call.ts";
import { isWithin } from "../sandbox/paths.ts";

/** What a task owns, and whether its commands can be held to it. */
export interface OwnsRule {
  /** Absolute paths the task owns; empty: no narrowing. */
  paths: readonly string[];
  /** True when commands can only write the owned paths (bubblewrap); otherwise none may run. */
  commandsConfined: boolean;
}

/** Why `access` breaks the `owns` narrowing, in words for the model; null when it does not. */
export function ownsViolation(owns: OwnsRule | undefined, access: Access): string | null {
  if (!owns?.paths.length) return null;
  const outside = (access.writes ?? []).filter(
    (written) => !owns.paths.some((owned) => isWithin(owned, written)),
  );
  if (outside.length) {
    return `this subagent may only write ${owns.paths.join(", ")}; ${
      outside.join(", ")
    } is not among them`;
  }
  if (access.commands?.length && !owns.commandsConfined) {
    return "this subagent owns only some paths, and without bubblewrap its commands could write anywhere, so it may not run commands";
  }
  return null;
}
