/**
 * An editor's own view of the workspace's text files, offered to the file
 * tools when skiff runs inside an editor (the Agent Client Protocol's
 * `fs/read_text_file` and `fs/write_text_file`): the text of a buffer with
 * its unsaved changes, and a buffer taking new text. Every path given here
 * has been judged already, as the tools judge any path; the editor is asked
 * only about a file the session may touch.
 */
export interface EditorFiles {
  /** The editor's text of `file` (absolute), unsaved changes included. Absent: reads use disk. */
  read?(file: string): Promise<string>;
  /** Hands `text` to the editor as the new content of `file`. Absent: writes go to disk. */
  write?(file: string, text: string): Promise<void>;
}

/** Which of the two an editor offers: plain data, to cross to the engine's Worker. */
export interface EditorFileOffer {
  read: boolean;
  write: boolean;
}
