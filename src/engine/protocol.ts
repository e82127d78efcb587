/**
 * Messages between the terminal side and the engine Worker. Requests carry
 * an id and get exactly one `result` or `failure` back; events, approval
 * questions and editor requests flow the other way at any time.
 */
import type { SkiffEvent } from "../contracts/events.ts";
import type { ErrorData } from "../contracts/errors.ts";
import type { ApprovalAnswer, ApprovalRequest, EngineSpec, RunRequest } from "./types.ts";
import type { SessionSelector } from "./select_session.ts";
import type { WriterReply, WriterRequest } from "../sandbox/writer/writer_messages.ts";
import type { EditorFileOffer } from "../contracts/editor_files.ts";

/** What the file tools ask of the editor, by the path they have judged already. */
export type EditorRequest =
  | { op: "read"; file: string }
  | { op: "write"; file: string; text: string };

export type ToEngine =
  /**
   * `files`: the file tools write through the confined writer (src/sandbox/writer/confined_writer.ts),
   * by `files` requests to this side, which passes them on; absent: on the engine's thread.
   * `events`: the event types the terminal side shows (absent: all); the others are still
   * stored, only not posted across, so a call of `skiff tool` posts no event it would drop.
   * `editor`: what the editor the session runs inside offers its file tools (`EngineIO.editor`),
   * asked for by `editor` requests to this side; absent: disk alone.
   * `timings`: SKIFF_TIMINGS is on: the Worker sends its marks before it answers `close`.
   */
  | {
    type: "init";
    spec: EngineSpec;
    files?: boolean;
    events?: readonly string[];
    editor?: EditorFileOffer;
    timings?: boolean;
  }
  /**
   * Sent to a Worker started before the config was loaded (prewarm.ts): load
   * the engine's modules now, and the model client's when `provider`; open the
   * store of `dataDir` (the folder the terminal side expects) when given. Nothing
   * else reaches it until its permissions prove to be the derived ones.
   */
  | { type: "warm"; provider: boolean; dataDir?: string }
  /**
   * Sent to the same Worker once the CLI has parsed `skiff tool <name> …`: build
   * that tool's input schema and start its own preparation (tools/registry.ts,
   * `prepareTool`) while `init` is awaited. Data only; a name that is no
   * built-in tool's does nothing.
   */
  | { type: "warm-tool"; name: string }
  | { type: "open"; id: number; selector: SessionSelector }
  | { type: "run"; id: number; request: RunRequest }
  | {
    type: "tool";
    id: number;
    name: string;
    input: unknown;
    inOrder?: boolean;
    cancelId?: string;
    typedByPerson?: boolean;
  }
  | { type: "cancel-tool"; cancelId: string }
  | { type: "compact"; id: number; focus?: string }
  | { type: "mcp-status"; id: number }
  /** The chat's input has waited for the person (EngineHandle.notifyIdle). */
  | { type: "idle" }
  /** `keepHold`, `ending`: see EngineHandle.close (engine/handle.ts). */
  | { type: "close"; id: number; keepHold?: boolean; ending?: boolean }
  | { type: "abort" }
  /** Collect garbage now: the front end is idle (lib/collect.ts). */
  | { type: "collect" }
  | { type: "answer"; id: number; answer: ApprovalAnswer }
  /** The confined writer's reply to a `files` request. */
  | { type: "files"; reply: WriterReply }
  /** The confined writer died: no reply to a `files` request will come. */
  | { type: "files-gone"; message: string }
  /** The editor's reply to an `editor` request: the text read, or why it failed. */
  | { type: "editor"; id: number; text?: string; error?: ErrorData };

export type FromEngine =
  | { type: "event"; event: SkiffEvent }
  /** The Worker's SKIFF_TIMINGS marks, each at milliseconds since the epoch (boot/timings.ts). */
  | { type: "timings"; marks: { name: string; at: number }[] }
  | { type: "ask"; id: number; request: ApprovalRequest }
  | { type: "result"; id: number; value: unknown }
  /** A write for the confined writer (sent only after an `init` with `files`). */
  | { type: "files"; request: WriterRequest }
  /** A file tool's read from, or write to, the editor (sent only after an `init` with `editor`). */
  | { type: "editor"; id: number; request: EditorRequest }
  /** A SkiffError keeps its kind and hint (src/contracts/errors.ts). */
  | { type: "failure"; id: number; error: ErrorData };

/** A request to the engine before it gets its id: each is answered by one `result` or `failure`. */
export type EngineRequest = Exclude<ToEngine, { type: "answer" | "editor" }> extends infer M
  ? M extends { id: number } ? Omit<M, "id"> : never
  : never;
