/**
 * The chat's slash commands: the built-in ones (src/cli/chat_commands/) and
 * the custom commands of this project and user (src/definitions/commands.ts). A
 * custom command never replaces a built-in one: it is skipped with a note.
 */
import { CommandRegistry, helpCommand } from "../../../ui/chat/input/commands.ts";
import { loadCustomCommandsAsync } from "../../../definitions/commands.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import type { SessionControls } from "./controls.ts";
import { resumeCommand, sessionsCommand, undoSlashCommand } from "./sessions.ts";
import { agentCommand, modelCommand } from "./model.ts";
import { mcpCommand, permissionsCommand, usageSlashCommand } from "./info.ts";
import { compactSlashCommand, initCommand } from "./prompts.ts";
import { customSlashCommand } from "./custom.ts";
import { thinkingCommand } from "./thinking.ts";

export type { SessionControls };

export interface ChatCommandDeps {
  /** For /model's list. @default fetch */
  fetch?: typeof fetch;
  /** @default `$HOME` (where the user's Claude Code and opencode commands are) */
  home?: string;
}

export async function chatCommands(
  controls: SessionControls,
  deps: ChatCommandDeps = {},
): Promise<CommandRegistry<SessionControls>> {
  const commands = new CommandRegistry<SessionControls>();
  commands.add(helpCommand(commands));
  commands.add({
    name: "new",
    description: "start a new session (the current one stays stored)",
    async run(_args, controls) {
      await controls.newSession();
      controls.print("New session: the next message starts it.");
    },
  });
  commands.add({
    name: "exit",
    description: "end the chat",
    run: (_args, controls) => controls.exit(),
  });
  for (
    const command of [
      undoSlashCommand,
      sessionsCommand,
      resumeCommand,
      modelCommand(deps.fetch),
      agentCommand,
      compactSlashCommand,
      usageSlashCommand,
      thinkingCommand,
      permissionsCommand,
      mcpCommand,
      initCommand,
    ]
  ) {
    commands.add(command);
  }
  const spec = controls.spec();
  const custom = await loadCustomCommandsAsync({
    workspace: spec.workspace,
    configDir: spec.configDir,
    home: deps.home,
  });
  const notes = [...custom.warnings];
  for (const command of custom.commands) {
    if (commands.get(command.name)) {
      notes.push(
        `${command.file}: /${command.name} is a built-in command and keeps its meaning; rename the file to use it`,
      );
      continue;
    }
    commands.add(customSlashCommand(command));
  }
  if (notes.length) {
    controls.print(neutraliseControls(notes.map((note) => `note: ${note}`).join("\n")));
  }
  return commands;
}
