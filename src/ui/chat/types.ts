/**
 * The chat renderer's contract: what it draws into, what it is given and
 * what it offers. Apart from the renderer, so the pieces that draw (screen,
 * status line) name these types without importing the renderer back.
 */
import type { SkiffEvent } from "../../contracts/events.ts";

/** Where the renderer writes; `Deno.stdout` in the program, a capture in tests. */
export interface ChatOutput {
  writeSync(data: Uint8Array): number;
}

export interface ChatRendererOptions {
  /** @default Deno.stdout */
  output?: ChatOutput;
  /** Terminal width in cells. @default 80 */
  columns?: number;
  /** Terminal height in rows; the bottom region never takes more than a third of it. @default 24 */
  rows?: number;
  /**
   * ANSI colour and styles. Plain text (no escape sequence at all except the
   * ones that redraw the bottom region) when false.
   * @default `chatColour()`: off when NO_COLOR is set or TERM is dumb
   */
  color?: boolean;
  /**
   * Whether the bottom region may be redrawn with cursor movement. Off for
   * TERM=dumb: then nothing is ever erased, the status is printed as a line
   * when it changes, and the input is left to the terminal's own echo.
   * @default TERM is not "dumb"
   */
  redraw?: boolean;
  /** What the status line names before `session.started` says otherwise. */
  status?: Partial<StatusInfo>;
  /** Milliseconds since the epoch; injectable for tests (spinner, durations). @default Date.now */
  now?: () => number;
  /** How often the spinner frame advances while working (ms); 0 turns the timer off. @default 120 */
  spinnerEveryMs?: number;
}

/** What the status line shows. */
export interface StatusInfo {
  model: string;
  agent: string;
  /** The sandbox mode: read-only, workspace-write, full-access. */
  sandbox: string;
  /** The model's context window in tokens; 0 when unknown (then no % is shown). */
  window: number;
  /** The window is skiff's guess (a model it does not know, none configured): `ctx ?`. */
  windowAssumed?: boolean;
  /** Tokens in the last request sent (how full the context is). */
  contextTokens: number;
  /** Tokens this session, input + output. */
  totalTokens: number;
  /** Cost this session in US dollars; undefined when the model has no price. */
  costUsd?: number;
}

export interface ChatRenderer {
  /** Render one engine event: markdown for the answer, a line per tool call, the status. */
  event(event: SkiffEvent): void;
  /**
   * Redraw the bottom region with this input text (may hold newlines) and the
   * cursor at `cursor` (a UTF-16 index into `text`). `hint` is one dim line
   * under the input (a completion list, "Esc to stop"), or absent.
   */
  setInput(text: string, cursor: number, hint?: string): void;
  /** Change what the status line shows (model after `/model`, cost after a turn…). */
  setStatus(info: Partial<StatusInfo>): void;
  /**
   * Write text into the scrollback above the bottom region (a `/help` page, a
   * `!command`'s output). Control characters are shown, not obeyed, so it
   * takes plain text only (no colours of its own).
   */
  print(text: string): void;
  /** Expand the tool call with this id (or the last one when absent): its whole output or diff. */
  expandTool(callId?: string): void;
  /**
   * Write the last prompt's reasoning out whole below (dimmed), the reasoning
   * still streaming included; when this chat has seen none, what `stored`
   * gives (a resumed session's, from the store). False when there is none.
   */
  expandReasoning(stored?: () => string): boolean;
  /**
   * From now on, stream the model's reasoning into the scrollback (dimmed) as
   * it comes, or keep it collapsed to one line (the default).
   */
  showReasoning(on: boolean): void;
  /** Whether the reasoning is shown as it streams (`showReasoning`). */
  readonly reasoningShown: boolean;
  /** The terminal was resized: the bottom region is redrawn at the new width. */
  resize(columns: number, rows?: number): void;
  /**
   * Erase the bottom region and stop redrawing it, so a prompt (an approval,
   * a picker) can use the terminal. Streaming text still goes to the scrollback.
   */
  suspend(): void;
  /** Draw the bottom region again after `suspend()`. */
  resume(): void;
  /** Erase the bottom region, stop the spinner, leave the cursor on a fresh line. */
  dispose(): void;
}
