/**
 * /sessions, /resume and /undo: this folder's stored sessions, switching to
 * one of them, and putting back what the last prompt changed (shown first,
 * then done by `skiff undo`'s own code).
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import type { Session } from "../../../store/store.ts";
import { withStore } from "../../store_access.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import { folderSessions, pickerLines } from "../sessions.ts";
import { undoCommand } from "../../undo.ts";
import type { SessionControls } from "./controls.ts";

type Command = SlashCommand<SessionControls>;

/** How many of this folder's sessions /sessions and /resume list. */
const LISTED = 9;

function listing(controls: SessionControls, sessions: Session[]): string {
  const current = controls.sessionId();
  return neutraliseControls(
    pickerLines(sessions).map((line, index) =>
      `${line}${sessions[index].id === current ? "  ← this one" : ""}`
    ).join("\n"),
  );
}

export const sessionsCommand: Command = {
  name: "sessions",
  description: "list this folder's sessions (title, age, size)",
  run(_args, controls) {
    const sessions = folderSessions(controls.spec(), LISTED);
    if (!sessions.length) return controls.print("No stored sessions in this folder yet.");
    controls.print(`${listing(controls, sessions)}\nSwitch with /resume <number>.`);
  },
};

export const resumeCommand: Command = {
  name: "resume",
  description: "continue another session of this folder (picks from a list)",
  argumentHint: "[number|id]",
  async run(args, controls) {
    const sessions = folderSessions(controls.spec(), LISTED);
    let chosen: string | undefined;
    if (args) {
      chosen = /^\d+$/.test(args) ? sessions[Number(args) - 1]?.id : args;
      if (!chosen) return controls.print(`No session number ${args}: see /sessions.`);
    } else {
      if (!sessions.length) return controls.print("No stored sessions in this folder yet.");
      controls.print(listing(controls, sessions));
      const index = await controls.pick("Resume which?", sessions.length);
      if (index === undefined) return controls.print("Resume cancelled.");
      chosen = sessions[index - 1].id;
    }
    if (chosen === controls.sessionId()) return controls.print("That is the session open now.");
    await controls.reopen({ sessionId: chosen });
    if (!(await controls.showEarlier(chosen))) {
      controls.print(neutraliseControls(`Resumed ${chosen}: it has no messages yet.`));
    }
  },
};

export const undoSlashCommand: Command = {
  name: "undo",
  description: "put back the files the last prompt changed (shows them first)",
  async run(_args, controls) {
    const sessionId = controls.sessionId();
    if (!sessionId) return controls.print("Nothing to undo: no prompt has run in this chat.");
    const preview = undoPreview(controls.spec().dataDir, sessionId);
    if (!preview) return controls.print("Nothing to undo: no file changes are recorded.");
    controls.print(
      neutraliseControls(
        `Undo prompt ${preview.prompt} puts back:\n${
          preview.paths.map((path) => `  ${path}`).join("\n")
        }`,
      ),
    );
    if (!(await controls.confirm("Put these back?"))) return controls.print("Undo cancelled.");
    let putBack = 0;
    const code = await undoCommand({ session: sessionId, counted: (count) => putBack += count });
    // Nothing put back: the files are as the model last saw them, so it is told nothing.
    if (putBack === 0) return;
    // The conversation still says these files were changed: the model must
    // not edit from what it remembers of them.
    controls.tellModel(
      code === 0
        ? `I undid the file changes of prompt ${preview.prompt}; these files are back as they ` +
          `were before it: ${preview.paths.join(", ")}. Read them again before changing them.`
        : `I tried to undo the file changes of prompt ${preview.prompt} (${
          preview.paths.join(", ")
        }), but not all of them could be put back; read them again before changing them.`,
    );
  },
};

/** The prompt `skiff undo` would undo in this session and the files it names. */
function undoPreview(
  dataDir: string,
  sessionId: string,
): { prompt: number; paths: string[] } | undefined {
  return withStore((store) => {
    const prompt = store.snapshots.lastPrompt(sessionId);
    if (prompt === null) return undefined;
    const paths = store.snapshots.forPrompt(sessionId, prompt).map((snapshot) => snapshot.path);
    return { prompt, paths: [...new Set(paths)].sort() };
  }, dataDir);
}
