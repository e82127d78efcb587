/**
 * /thinking: the model's reasoning, collapsed to one line by default, written
 * out whole (the last prompt's, or a resumed session's from the store), or
 * shown as it streams from now on (`on`) until `off`. Ctrl-T toggles the same.
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import { lastStoredReasoning } from "../sessions.ts";
import type { SessionControls } from "./controls.ts";

export const thinkingCommand: SlashCommand<SessionControls> = {
  name: "thinking",
  description: "write out the last reasoning; on/off: show reasoning as it streams (Ctrl-T)",
  argumentHint: "[on|off]",
  run(args, controls) {
    const choice = args.trim().toLowerCase();
    if (choice === "on" || choice === "off") {
      controls.reasoning.showReasoning(choice === "on");
      return controls.print(
        choice === "on"
          ? "Reasoning shown as it streams from now on (/thinking off collapses it)."
          : "Reasoning collapsed to one line from now on (/thinking writes the last one out).",
      );
    }
    if (choice) return controls.print("Usage: /thinking, /thinking on, /thinking off");
    const sessionId = controls.sessionId();
    const stored = () => sessionId ? lastStoredReasoning(controls.spec(), sessionId) : "";
    if (!controls.reasoning.expandReasoning(stored)) {
      controls.print("No reasoning yet: the model has not streamed any in this session.");
    }
  },
};
