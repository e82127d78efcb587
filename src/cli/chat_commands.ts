/**
 * The slash commands the chat starts with: /help, /new, /exit and /undo
 * (which shows what would come back before it puts anything back, then runs
 * `skiff undo`'s own code). More are added to the same registry.
 */
import { CommandRegistry, helpCommand } from "../ui/chat/input/commands.ts";
import type { ChatControls } from "../ui/chat/input/commands.ts";
import { openStore } from "../store/store.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { neutraliseControls } from "../ui/safe_text.ts";
import { undoCommand } from "./undo.ts";

export function chatCommands(
  _controls: ChatControls,
  registry: () => CommandRegistry,
): CommandRegistry {
  const commands = new CommandRegistry();
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
  commands.add({
    name: "undo",
    description: "put back the files the last prompt changed (shows them first)",
    async run(_args, controls) {
      const sessionId = controls.sessionId();
      if (!sessionId) return controls.print("Nothing to undo: no prompt has run in this chat.");
      const preview = undoPreview(sessionId);
      if (!preview) return controls.print("Nothing to undo: no file changes are recorded.");
      controls.print(
        neutraliseControls(
          `Undo prompt ${preview.prompt} puts back:\n${
            preview.paths.map((path) => `  ${path}`).join("\n")
          }`,
        ),
      );
      if (!(await controls.confirm("Put these back?"))) return controls.print("Undo cancelled.");
      await undoCommand({ session: sessionId });
    },
  });
  void registry;
  return commands;
}

/** The prompt `skiff undo` would undo in this session and the files it names. */
function undoPreview(sessionId: string): { prompt: number; paths: string[] } | undefined {
  const store = openStore(resolveDataDir(Deno.env.toObject()));
  try {
    const prompt = store.snapshots.lastPrompt(sessionId);
    if (prompt === null) return undefined;
    const paths = store.snapshots.forPrompt(sessionId, prompt).map((snapshot) => snapshot.path);
    return { prompt, paths: [...new Set(paths)].sort() };
  } finally {
    store.close();
  }
}
