/**
 * What skiff gave an editor to hold (`skiff acp` with the editor's
 * buffers): such a write may never reach the disk (the editor keeps it
 * unsaved), so the state a prompt left a file in, which `skiff undo`
 * compares against, is the text the editor took, not what disk holds.
 * Undo then leaves a file alone whose disk content is not skiff's, as for
 * any change made since.
 */
import type { EditorFiles } from "../contracts/editor_files.ts";
import { hashContent } from "../tools/files/mod.ts";
import { undoStateOf } from "./undo.ts";

export class EditorWrites {
  /** Path → hash of the last text the editor took there. */
  readonly #took = new Map<string, string>();

  /** `editor` with each write it takes remembered; undefined stays undefined. */
  remembering(editor: EditorFiles | undefined): EditorFiles | undefined {
    const write = editor?.write;
    if (!write) return editor;
    return {
      ...editor,
      write: async (file, text) => {
        await write(file, text);
        this.#took.set(file, hashContent(new TextEncoder().encode(text)));
      },
    };
  }

  /** The state the prompt left `path` in: the editor's text when it took the last write, else disk. */
  stateOf(path: string): string {
    return this.#took.get(path) ?? undoStateOf(path);
  }

  /** A command or a disk write changed `path` after the editor's: disk speaks for it again. */
  forget(paths: Iterable<string>): void {
    for (const path of paths) this.#took.delete(path);
  }
}
