/**
 * Where the file ledger files a file's content before a prompt changes it,
 * and the hash both sides compare: the store keeps the snapshots, the tools
 * layer writes them, undo checks a file still shows what skiff wrote. SHA-256
 * in plain TypeScript: `node:crypto` would start Deno's Node layer in the
 * engine's Worker (sha256.ts).
 */
import { sha256Hex } from "../lib/sha256.ts";

/** Where snapshots go; the store provides the persistent one. */
export interface SnapshotSink {
  /** Record `before` (null: the file did not exist) unless this user prompt already has one. */
  save(prompt: number, path: string, before: Uint8Array | null): void | Promise<void>;
  /**
   * skiff is about to leave `path` with `after` (null: removed). Filed
   * before every write, so undo after a kill knows the file's state for skiff's own.
   */
  expect?(prompt: number, path: string, after: Uint8Array | null): void | Promise<void>;
}

export function hashContent(content: Uint8Array | string): string {
  return sha256Hex(content);
}
