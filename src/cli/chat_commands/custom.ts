/**
 * Custom commands (src/skills/commands.ts) as slash commands. A command only
 * sends text to the model, so a project's own commands work in a project
 * nobody has trusted; but one never replaces a built-in command, and its
 * `model` and `agent` (which would spend or widen) apply only when the
 * project is trusted. A user's own commands are trusted like the user.
 */
import type { SlashCommand } from "../../ui/chat/input/commands.ts";
import { type CustomCommand, expandCommand } from "../../skills/commands.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
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
      if (command.scope === "project" && spec.projectTrusted === false) {
        controls.print(neutraliseControls(
          `/${command.name} asks for ${
            [wanted.model && `model ${wanted.model}`, wanted.agent && `agent ${wanted.agent}`]
              .filter(Boolean).join(" and ")
          }; ignored, as this project is not trusted (--trust-project).`,
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
