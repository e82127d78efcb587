/**
 * The messages to and from the confined writer's Worker: what its client
 * (confined_writer.ts) and the Worker itself (confined_writer_worker.ts)
 * both speak, apart from either, so neither imports the other.
 */
import type { LandlockResult } from "../landlock/landlock.ts";

/** The Worker's first message: the folders it may write. */
export interface WriterInit {
  writable: string[];
}

export type WriterRequest =
  | { id: number; op: "write"; file: string; bytes: Uint8Array; mode?: number }
  | { id: number; op: "remove"; file: string };

export type WriterReply =
  | { id: number; ok: true }
  | { id: number; ok: false; error: { name: string; message: string } };

/** What the writer's Worker posts: its confinement once, then a reply per request. */
export type WriterOut =
  | { type: "confinement"; result: LandlockResult }
  | { type: "reply"; reply: WriterReply };
