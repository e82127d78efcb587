/**
 * Custom commands (src/definitions/commands.ts) as slash commands. A command only
 * sends text to the model, so a project's own commands work in a project
 * nobody has trusted; but one never replaces a built-in command nor one of
 * yours, and its `model` and `agent` (which would spend or widen) apply only
 * when the person trusted the project (`spec.projectTrusted`, the one trust
 * decision; a spec that does not say counts as untrusted). A user's own
 * commands are trusted like the user.
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import { type CustomCommand, expandCommand } from "../../../definitions/commands.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import type { SessionControls } from "./controls.ts";

export function customSlashCommand(command: CustomCommand): SlashCommand<SessionControls> {
  return {
    name: command.name,
    description: command.description,
    argumentHint: command.argumentHint,
    source: command.source,
    async run(args, controls) {
      const prompt = expandCommand(command.body, args);
      const spec = controls.spec();
      const wanted = { model: command.model, agent: command.agent };
      if (!wanted.model && !wanted.agent) return await controls.send(prompt);
      if (command.scope === "project" && spec.projectTrusted !== true) {
        controls.print(neutraliseControls(
          `/${command.name} (${command.source}) asks for ${
            [wanted.model && `model ${wanted.model}`, wanted.agent && `agent ${wanted.agent}`]
              .filter(Boolean).join(" and ")
          }; ignored, as you have not trusted this project: the prompt goes with your current model and agent. To honour it, start skiff with --trust-project, or add this folder to trustedProjects in your global config.`,
        ));
        return await controls.send(prompt);
      }
      // For this prompt only; then back to what the person chose.
      const before = { model: spec.model, agent: spec.agent };
      await controls.reopen(wanted);
      try {
        await controls.send(prompt);
      } finally {
        await controls.reopen(before);
      }
    },
  };
}
