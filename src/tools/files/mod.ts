/**
 * The file tools (read, write, edit, apply_patch, file_copy, file_delete) and
 * what the rest of skiff needs of them: the ledger of what the model has
 * read, and the switch that routes atomic writes through the confined
 * writer. Modules named `_…` here are this group's own.
 */
export { applyPatchTool } from "./apply_patch.ts";
export { editTool } from "./edit.ts";
export { fileCopyTool } from "./file_copy.ts";
export { fileDeleteTool } from "./file_delete.ts";
export { readTool } from "./read.ts";
export { writeTool } from "./write.ts";
export { FileLedger, hashContent } from "./file_ledger.ts";
// Every writer of files goes through the change set: plan, preview, commit with rollback.
export {
  type ChangeSet,
  commitChangeSet,
  commitFileChange,
  type FileChange,
  planChangeSet,
  previewChange,
  previewChangeSet,
  withFileLocks,
} from "./change_set.ts";
export { type AtomicWrites, routeFileWrites, writesOnThisThread } from "./_file_io.ts";
