/**
 * The shapes the store hands out. Field names follow the columns
 * (snake_case), so an exported session reads the same as the database.
 */
import type { Liveness, RunOwner } from "./run_owner.ts";

/** A session row. Times are milliseconds since the epoch. */
export interface Session {
  id: string;
  workspace: string;
  title: string;
  model: string;
  agent: string;
  parent_id: string | null;
  created_at: number;
  updated_at: number;
  /**
   * "running" while a live run holds it; the engine sets how it ended
   * ("completed", "failed"…); "stopped" when its run died without saying.
   */
  status: string;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  turns: number;
}

export interface NewSession {
  workspace: string;
  model: string;
  agent: string;
  parentId?: string;
  title?: string;
  /** The run that will write it: it is held for that run from the start. */
  holder?: RunOwner;
}

export type SessionPatch = Partial<Pick<Session, "title" | "model" | "agent" | "status">>;

/** A stored message with its part payloads, in order, exactly as appended. */
export interface HistoryMessage {
  id: string;
  seq: number;
  role: string;
  created_at: number;
  parts: unknown[];
}

/** A file as it was before a user prompt first changed it. */
export interface Snapshot {
  path: string;
  /** null: the file did not exist. */
  content: Uint8Array | null;
  existed: boolean;
  hash: string | null;
  /** What the prompt left: a content hash, "absent", or null when it never finished. */
  after_hash: string | null;
  /** File mode before the change (permission bits), when it existed. */
  mode: number | null;
  created_at: number;
}

export interface StoreOptions {
  /** Clock in milliseconds; injectable for tests. @default Date.now */
  now?: () => number;
  /** Whether a run's process lives; injectable for tests. @default processLiveness */
  liveness?: (owner: RunOwner) => Liveness;
}
