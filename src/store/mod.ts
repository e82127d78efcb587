/**
 * Where sessions live: one SQLite database in the data folder
 * (`data_dir.ts`: `$SKIFF_DATA_DIR`, else the platform's data folder), on
 * node:sqlite. `openStore` (`store.ts`) opens it and migrates the schema
 * (`migrations.ts`); the store's tables are one module each: sessions and
 * messages (`store.ts`), the event log (`event_log.ts`), undo snapshots
 * (`snapshots.ts`), batches (`batches.ts`), usage (`usage.ts`), harness
 * memory (`memory.ts`), the file reads that read-before-edit checks
 * (`file_reads.ts`). A run holds the sessions it writes (`session_locks.ts`,
 * `run_owner.ts`); a tool's whole output is spilled to files
 * (`tool_output.ts`).
 */
export { openStore, type Store } from "./store.ts";
export { resolveDataDir } from "./data_dir.ts";
export { StoreError } from "./errors.ts";
