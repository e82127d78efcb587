/**
 * Undo: what a prompt changed, put back. The file tools file each file's
 * content before a prompt first changes it (the file ledger, through
 * src/contracts/snapshot_sink.ts); a command's changes are surveyed before
 * and after it runs (`command_snapshots.ts`, on git's index when the
 * workspace is a repository). `undoSnapshots` (`undo.ts`) restores a
 * prompt's snapshots, refusing a file changed on disk since skiff changed
 * it; `skiff undo` (src/cli/undo.ts) and the chat's `/undo` call it.
 */
export { CommandSnapshots } from "./command_snapshots.ts";
export { undoSnapshots } from "./undo.ts";
