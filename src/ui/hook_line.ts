/**
 * How a hook's run reads at a terminal, for the text renderer and the chat
 * alike: one line naming the event and the command and how it ended, then
 * the first lines of what it printed. A hook's output is not skiff's: its
 * control characters are shown, never obeyed.
 */
import type { EventBodies } from "../contracts/events.ts";
import { neutraliseControls } from "./safe_text.ts";

/** Lines of a hook's output shown under its line; the event keeps more. */
const SHOWN_LINES = 6;

/** The lines for one `hook.completed` event, and whether it failed (a warning's colour). */
export function hookLines(event: EventBodies["hook.completed"]): { text: string; failed: boolean } {
  const how = event.timed_out
    ? "timed out and was stopped"
    : event.exit_code === null
    ? "did not run"
    : event.blocked
    ? "blocked"
    : event.ok
    ? "ran"
    : `failed (exit ${event.exit_code})`;
  const where = event.unsandboxed ? " [unsandboxed]" : "";
  const lines = event.output.split("\n").filter((line) => line.trim());
  const shown = lines.slice(0, SHOWN_LINES).map((line) => `  │ ${line}`);
  if (lines.length > SHOWN_LINES) shown.push(`  │ … ${lines.length - SHOWN_LINES} more lines`);
  const text = `hook ${event.hook_event} \`${event.command}\`${where} ${how}` +
    (shown.length ? `\n${shown.join("\n")}` : "");
  return { text: neutraliseControls(text), failed: !event.ok };
}
