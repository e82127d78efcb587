/**
 * Reads every agent file once. The host reads them while preparing a run;
 * what it read serves the project-trust question (allow rules in the
 * project's files) and the agent list the whole session uses, so no file is
 * read a second time, in the host or in the engine's Worker.
 */
import * as path from "../../lib/path.ts";
import { agentFiles, userAgentFolders } from "./discovery.ts";

/** One agent file as read: its text, or why it could not be read. */
export interface AgentFile {
  /** Absolute path. */
  file: string;
  text?: string;
  /** The read failed: its message (the loader turns it into a warning). */
  error?: string;
  /** The project ships it (not in one of the user's own folders). */
  project: boolean;
}

export interface ReadAgentFilesOptions {
  /** Absolute workspace root. */
  workspace: string;
  configDir: string;
  home: string;
  /** Reads one file's text; a test passes its own. @default Deno.readTextFileSync */
  read?: (file: string) => string;
}

/**
 * Every agent file, lowest priority first, each read once.
 * Needs --allow-read on the workspace up to the git root and the agent folders.
 */
export function readAgentFiles(options: ReadAgentFilesOptions): AgentFile[] {
  const read = options.read ?? Deno.readTextFileSync;
  const own = new Set(userAgentFolders(options.configDir, options.home));
  return agentFiles(options.workspace, options.configDir, options.home).map((file) => {
    const project = !own.has(path.dirname(file));
    try {
      return { file, text: read(file), project };
    } catch (error) {
      return { file, error: (error as Error).message, project };
    }
  });
}
