/**
 * What the chat's own commands may do to the session they run in: the
 * controls every chat has (src/ui/chat/input/commands.ts) and the engine,
 * the spec the next prompt runs with, and switching model, agent or session.
 */
import type { ChatControls } from "../../../ui/chat/input/commands.ts";
import type { ChatRenderer } from "../../../ui/chat/mod.ts";
import type { EngineSpec } from "../../../engine/types.ts";
import type { EngineHandle } from "../../../engine/handle.ts";

export interface SessionControls extends ChatControls {
  /** What the next prompt runs with: model, agent, workspace, config, agents. */
  spec(): EngineSpec;
  /** The engine of the open session, opened (and the session with it) when none is. */
  engine(): Promise<EngineHandle>;
  /**
   * From the next prompt on, another model or agent, or another stored
   * session of this folder (by default the one open now stays): the engine
   * is closed and opens again then.
   */
  reopen(change: { model?: string; agent?: string; sessionId?: string }): Promise<void>;
  /** Asks the person to press 1…`count`; undefined for any other key. */
  pick(question: string, count: number): Promise<number | undefined>;
  /**
   * Draws a stored session's earlier prompts as they looked live, and its
   * status line; false when it has none.
   */
  showEarlier(sessionId: string): Promise<boolean>;
  /** A note the model gets with the next message (as a `!command`'s output is). */
  tellModel(note: string): void;
  /** The chat's reasoning display: written out whole, or shown as it streams. */
  reasoning: Pick<ChatRenderer, "expandReasoning" | "showReasoning" | "reasoningShown">;
}
