/**
 * The chat renderer: turns engine events into what the interactive session
 * draws. Finished things (markdown blocks of the answer, tool lines, notes)
 * go to the scrollback once; the growing block of the answer, calls still
 * running, the todo list, the input and the status line make up the bottom
 * region, rebuilt and redrawn whenever one of them changes. The model's
 * reasoning is collapsed by default: one dimmed line while it streams, then
 * one line in the scrollback. `expandReasoning` writes the last prompt's out
 * whole, and with `showReasoning(true)` it streams into the scrollback,
 * dimmed, as it comes (the whole of it is also in `skiff sessions export`).
 */
import type { EventOf, SkiffEvent } from "../../contracts/events.ts";
import type { Todo } from "../../contracts/todo.ts";
import { neutraliseControls } from "../safe_text.ts";
import { highlight } from "./highlight.ts";
import { inputRows } from "./input_view.ts";
import { loadMarkdown, markdownLexer, type MarkdownOptions, MarkdownStream } from "./markdown.ts";
import type { ChatRenderer, ChatRendererOptions, StatusInfo } from "./types.ts";
import { type RegionCursor, Screen } from "./screen.ts";
import { formatStatusLine, formatTokens } from "./status_line.ts";
import { canRedraw, chatColour, makeStyle } from "./style.ts";
import { formatTodos, todosOf } from "./todo_view.ts";
import { formatToolCall, keyArgument } from "./tool_line.ts";
import { preloadWidth, truncate, wrapLine, wrapWords } from "./width.ts";
import { hookLines } from "../hook_line.ts";

export { chatColour };

/** Finished calls kept for `expandTool`; older ones can no longer be expanded. @default 100 */
const KEPT_CALLS = 100;

interface Running {
  tool: string;
  argument: string;
  since: number;
}

export function createChatRenderer(options: ChatRendererOptions = {}): ChatRenderer {
  return new InlineChatRenderer(options);
}

class InlineChatRenderer implements ChatRenderer {
  #screen: Screen;
  #style;
  #now: () => number;
  #status: StatusInfo;
  #markdown: MarkdownOptions;
  #stream: MarkdownStream | undefined;
  /** Answer text that arrived before `marked` had loaded. */
  #unlexed = "";
  #live: string[] = [];
  /**
   * The reasoning streaming now: its text, its line count, its last whole
   * line, the line growing, and how much of the text is already written out
   * (while the reasoning is shown).
   */
  #thinking:
    | { text: string; lines: number; tail: string; partial: string; written: number }
    | undefined;
  /** The reasoning of the current prompt (or the last one), one entry per model request. */
  #reasoning: string[] = [];
  /** Reasoning streams into the scrollback as it comes, instead of staying collapsed. */
  #showReasoning = false;
  #inputs = new Map<string, unknown>();
  #running = new Map<string, Running>();
  #finished = new Map<string, { event: EventOf<"tool.completed">; input: unknown }>();
  #todos: Todo[] = [];
  #input: { text: string; cursor: number; hint?: string } | undefined;
  #working: { since: number; frame: number } | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #spinnerEveryMs: number;
  #suspended = false;
  #disposed = false;
  #lastStatus = "";

  constructor(options: ChatRendererOptions) {
    const color = options.color ?? chatColour();
    this.#style = makeStyle(color);
    this.#screen = new Screen({
      output: options.output ?? Deno.stdout,
      columns: options.columns ?? 80,
      rows: options.rows ?? 24,
      redraw: options.redraw ?? canRedraw(),
    });
    this.#now = options.now ?? Date.now;
    this.#spinnerEveryMs = options.spinnerEveryMs ?? 120;
    this.#status = {
      model: "",
      agent: "",
      sandbox: "",
      window: 0,
      contextTokens: 0,
      totalTokens: 0,
      ...options.status,
    };
    this.#markdown = { columns: this.#screen.regionWidth, style: this.#style, highlight };
    // Both are needed soon (the first answer, the first wide character) but
    // not for the first prompt: loaded while the user types.
    loadMarkdown().then(() => this.#lexerReady()).catch(() => {});
    preloadWidth().catch(() => {});
  }

  event(event: SkiffEvent): void {
    if (this.#disposed) return;
    switch (event.type) {
      case "session.started":
        // A new prompt: "the last reasoning" is its own from now on (a subagent's start is not one).
        if (!event.parent_id) this.#reasoning = [];
        this.#status.model ||= event.model;
        this.#status.agent ||= event.agent;
        break;
      case "turn.started":
        this.#startWorking();
        break;
      case "reasoning.delta":
        this.#startWorking();
        this.#think(event.text);
        break;
      case "message.delta":
        this.#endThinking();
        this.#startWorking();
        this.#answer(event.text);
        break;
      case "message.completed":
        this.#endThinking();
        this.#endAnswer();
        break;
      case "tool.started":
        this.#endThinking();
        this.#endAnswer();
        this.#toolStarted(event);
        break;
      case "tool.completed":
        this.#toolCompleted(event);
        break;
      case "permission.decided":
        // A started call's own line says it was refused, and why: said once.
        if (event.decision === "deny" && !this.#running.has(event.call_id)) {
          this.#note(
            this.#style.red(`✗ ${neutraliseControls(event.tool)} refused (${event.source})`),
          );
        }
        break;
      case "provider.retry":
        this.#note(
          this.#style.dim(
            `… retrying the model request in ${(event.delay_ms / 1000).toFixed(1)}s (${
              neutraliseControls(event.reason)
            })`,
          ),
        );
        break;
      case "turn.completed":
        this.#endThinking();
        this.#status.totalTokens += event.usage.total_tokens;
        if (event.usage.cost_usd !== undefined) {
          this.#status.costUsd = (this.#status.costUsd ?? 0) + event.usage.cost_usd;
        }
        if (event.usage.input_tokens > 0) this.#status.contextTokens = event.usage.input_tokens;
        break;
      case "context.compacted":
        this.#compacted(event);
        break;
      case "hook.completed": {
        this.#endAnswer();
        const { text, failed } = hookLines(event);
        this.#note(failed ? this.#style.yellow(text) : this.#style.dim(text));
        break;
      }
      case "warning":
        this.#endAnswer();
        this.#note(this.#style.yellow(`warning: ${neutraliseControls(event.message)}`));
        break;
      case "error":
        this.#endThinking();
        this.#endAnswer();
        this.#stopWorking();
        this.#note(this.#style.red(`skiff: ${neutraliseControls(event.message)}`));
        break;
      case "session.completed":
        this.#endThinking();
        this.#endAnswer();
        this.#stopWorking();
        break;
      default:
        return;
    }
    this.#redraw();
  }

  setInput(text: string, cursor: number, hint?: string): void {
    this.#input = { text, cursor, hint };
    this.#redraw();
  }

  setStatus(info: Partial<StatusInfo>): void {
    Object.assign(this.#status, info);
    this.#redraw();
  }

  print(text: string): void {
    this.#endAnswer();
    this.#scroll(this.#wrapWords(neutraliseControls(text)));
    this.#redraw();
  }

  /** skiff's own lines wrapped at spaces to the width; an id or a command is never cut. */
  #wrapWords(text: string): string {
    return wrapWords(text, this.#screen.regionWidth);
  }

  expandTool(callId?: string): void {
    const id = callId ?? [...this.#finished.keys()].at(-1);
    const call = id === undefined ? undefined : this.#finished.get(id);
    if (!call) return;
    const lines = formatToolCall(call.event, call.input, {
      style: this.#style,
      columns: this.#screen.regionWidth,
      expanded: true,
    });
    this.#scroll(lines.join("\n") + "\n");
    this.#redraw();
  }

  expandReasoning(stored?: () => string): boolean {
    const blocks = [...this.#reasoning];
    if (this.#thinking) blocks.push(this.#thinking.text);
    const text = blocks.map((block) => block.trim()).filter(Boolean).join("\n\n") ||
      (stored?.() ?? "");
    if (!text) return false;
    this.#endAnswer();
    const lines = text.split("\n").length;
    this.#note(this.#style.dim(`✻ reasoning, ${lines} line${lines === 1 ? "" : "s"}:`));
    this.#writeReasoning(text);
    this.#redraw();
    return true;
  }

  showReasoning(on: boolean): void {
    this.#showReasoning = on;
    // Shown from the middle of a stream: what has come so far first, then the rest as it comes.
    if (on && this.#thinking) this.#writeThinking(false);
    this.#redraw();
  }

  get reasoningShown(): boolean {
    return this.#showReasoning;
  }

  resize(columns: number, rows?: number): void {
    this.#screen.resize(columns, rows ?? this.#screen.rows);
    this.#markdown.columns = this.#screen.regionWidth;
    this.#redraw();
  }

  suspend(): void {
    this.#suspended = true;
    this.#screen.hide();
  }

  resume(): void {
    this.#suspended = false;
    this.#screen.show();
    this.#redraw();
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#endAnswer();
    this.#stopWorking();
    this.#disposed = true;
    this.#screen.close();
  }

  #lexerReady(): void {
    if (!this.#unlexed || this.#disposed) return;
    const text = this.#unlexed;
    this.#unlexed = "";
    this.#answer(text);
    this.#redraw();
  }

  #answer(text: string): void {
    const lex = markdownLexer();
    if (!lex) {
      this.#unlexed += text;
      this.#live = this.#unlexed.split("\n").map((line) => neutraliseControls(line));
      return;
    }
    this.#stream ??= new MarkdownStream(lex, this.#markdown);
    const step = this.#stream.push(text);
    this.#live = step.live;
    if (step.done.length) this.#scroll(step.done.join("\n") + "\n");
  }

  #think(text: string): void {
    const thinking = this.#thinking ??= { text: "", lines: 1, tail: "", partial: "", written: 0 };
    thinking.text += text;
    const lines = text.split("\n");
    if (lines.length === 1) {
      thinking.partial += text;
      return;
    }
    thinking.lines += lines.length - 1;
    const whole = [thinking.partial + lines[0], ...lines.slice(1, -1)];
    thinking.tail = whole.findLast((line) => line.trim() !== "") ?? thinking.tail;
    thinking.partial = lines.at(-1)!;
    if (this.#showReasoning) this.#writeThinking(false);
  }

  /** Writes the streaming reasoning's whole lines not written yet (and, when it is over, the rest). */
  #writeThinking(end: boolean): void {
    const thinking = this.#thinking!;
    const upTo = end ? thinking.text.length : thinking.text.lastIndexOf("\n") + 1;
    if (upTo <= thinking.written) return;
    let text = thinking.text.slice(thinking.written, upTo);
    // Leading blank lines of a block say nothing; the closing newline is the scroll's own.
    if (thinking.written === 0) text = text.replace(/^\s*\n/, "");
    thinking.written = upTo;
    text = text.replace(/\n$/, "");
    if (text.trim()) this.#writeReasoning(text);
  }

  /** Reasoning text into the scrollback: dimmed, indented, wrapped to the width. */
  #writeReasoning(text: string): void {
    const width = Math.max(10, this.#screen.regionWidth - 2);
    const rows = text.replaceAll("\r\n", "\n").split("\n").flatMap((line) =>
      line.trim() ? wrapLine(neutraliseControls(line), width) : [""]
    );
    this.#note(rows.map((row) => row ? this.#style.dim(`  ${row}`) : "").join("\n"));
  }

  /** The reasoning is over: one collapsed line goes to the scrollback. */
  #endThinking(): void {
    if (!this.#thinking) return;
    if (this.#showReasoning) this.#writeThinking(true);
    const { lines, text } = this.#thinking;
    this.#thinking = undefined;
    this.#reasoning.push(text);
    this.#note(this.#style.dim(`✻ thought for ${lines} line${lines === 1 ? "" : "s"}`));
  }

  #endAnswer(): void {
    const lex = markdownLexer();
    if (this.#unlexed && lex) {
      this.#stream ??= new MarkdownStream(lex, this.#markdown);
      this.#stream.push(this.#unlexed);
    } else if (this.#unlexed) {
      // marked never loaded: the answer is still shown, as plain safe text.
      this.#scroll(neutraliseControls(this.#unlexed) + "\n");
    }
    this.#unlexed = "";
    const rest = this.#stream?.finish() ?? [];
    this.#stream = undefined;
    this.#live = [];
    if (rest.length) this.#scroll(rest.join("\n") + "\n");
  }

  #toolStarted(event: EventOf<"tool.started">): void {
    this.#startWorking();
    this.#inputs.set(event.call_id, event.input);
    const todos = todosOf(event.tool, event.input);
    if (todos) {
      this.#todos = todos;
      if (!this.#screen.redraw) this.#note(this.#todoLines(todos.length + 1).join("\n"));
    }
    this.#running.set(event.call_id, {
      tool: neutraliseControls(event.tool),
      argument: keyArgument(event.tool, "", event.input),
      since: this.#now(),
    });
  }

  #toolCompleted(event: EventOf<"tool.completed">): void {
    const input = this.#inputs.get(event.call_id);
    this.#inputs.delete(event.call_id);
    this.#running.delete(event.call_id);
    const lines = formatToolCall(event, input, {
      style: this.#style,
      columns: this.#screen.regionWidth,
    });
    this.#scroll(lines.join("\n") + "\n");
    this.#finished.set(event.call_id, { event, input });
    // Turn 0: a call no model turn asked for (`!command`, `@path`): no turn ends it.
    if (event.turn === 0 && !this.#running.size) this.#stopWorking();
    if (this.#finished.size > KEPT_CALLS) {
      this.#finished.delete(this.#finished.keys().next().value!);
    }
  }

  #compacted(event: EventOf<"context.compacted">): void {
    this.#status.contextTokens = event.tokens_after;
    if (!this.#status.window) this.#status.window = event.window;
    const how = event.kind === "summary"
      ? `older messages summarised${event.replaced ? ` (${event.replaced})` : ""}`
      : `${event.pruned} old tool output${event.pruned === 1 ? "" : "s"} pruned`;
    const why = event.trigger === "overflow"
      ? "the model refused the request as too long"
      : event.trigger === "manual"
      ? "on request"
      : "";
    this.#note(
      this.#style.dim(
        `⋯ context compacted: ${formatTokens(event.tokens_before)} → ${
          formatTokens(event.tokens_after)
        } tokens, ${how}${why ? `; ${why}` : ""}`,
      ),
    );
  }

  /** Finished text into the scrollback, the region under it drawn as it is now. */
  #scroll(text: string): void {
    this.#screen.scroll(text, this.#region());
  }

  #note(text: string): void {
    this.#scroll(this.#wrapWords(text) + "\n");
  }

  #todoLines(maxRows: number): string[] {
    return formatTodos(this.#todos, this.#style, this.#screen.regionWidth, maxRows);
  }

  #startWorking(): void {
    if (this.#working) return;
    this.#working = { since: this.#now(), frame: 0 };
    if (this.#spinnerEveryMs > 0 && this.#screen.redraw) {
      this.#timer = setInterval(() => {
        if (!this.#working) return;
        this.#working.frame++;
        this.#redraw();
      }, this.#spinnerEveryMs);
      Deno.unrefTimer(this.#timer);
    }
  }

  #stopWorking(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#working = undefined;
    this.#running.clear();
    if (!this.#screen.redraw) {
      // No status line on a dumb terminal: the same facts as a line after each answer.
      const line = this.#statusLine();
      if (line !== this.#lastStatus) this.#note(line);
      this.#lastStatus = line;
    }
  }

  #statusLine(): string {
    const running = [...this.#running.values()].at(-1);
    const working = this.#working && {
      since: this.#working.since,
      now: this.#now(),
      frame: this.#working.frame,
      doing: running ? running.tool : this.#live.length ? "" : "thinking",
    };
    return formatStatusLine(this.#status, working, this.#style, this.#screen.regionWidth);
  }

  /** Hand the bottom region, built from the current state, to the screen. */
  #redraw(): void {
    const region = this.#region();
    if (region) this.#screen.setRegion(region.rows, region.cursor);
  }

  /** The bottom region from the current state; none while it is not drawn. */
  #region(): { rows: string[]; cursor?: RegionCursor } | undefined {
    if (this.#disposed || this.#suspended || !this.#screen.redraw) return undefined;
    const width = this.#screen.regionWidth;
    const budget = this.#screen.rows - 1;
    const bottom: string[] = [];
    let cursor: RegionCursor | undefined;
    if (this.#thinking) {
      const { lines, tail, partial } = this.#thinking;
      const newest = partial.trim() || tail.trim();
      const summary = `thinking… ${lines} line${lines === 1 ? "" : "s"}  ${newest}`;
      bottom.push(truncate(this.#style.dim(neutraliseControls(summary)), width));
    }
    for (const call of this.#running.values()) {
      const seconds = Math.floor((this.#now() - call.since) / 1000);
      bottom.push(
        truncate(
          `${this.#style.yellow("…")} ${this.#style.bold(call.tool)} ${call.argument} ${
            this.#style.dim(`${seconds}s`)
          }`,
          width,
        ),
      );
    }
    const fixedRows = (this.#input ? 2 : 0) + 1 + bottom.length;
    bottom.push(...this.#todoLines(Math.min(8, Math.max(0, budget - fixedRows - 2))));
    let inputStart = -1;
    if (this.#input) {
      const input = inputRows(this.#input.text, this.#input.cursor, width, this.#style);
      inputStart = bottom.length;
      bottom.push(...input.rows);
      cursor = { row: input.cursor.row, column: input.cursor.column };
      if (this.#input.hint) {
        bottom.push(truncate(this.#style.dim(neutraliseControls(this.#input.hint)), width));
      }
    }
    bottom.push(this.#statusLine());
    // The growing block gets what is left; its newest lines are the ones shown.
    const liveRows = this.#live.flatMap((line) => wrapLine(line, width));
    const room = Math.max(0, budget - bottom.length);
    const live = liveRows.slice(Math.max(0, liveRows.length - room));
    const rows = [...live, ...bottom].slice(-budget);
    if (cursor) cursor.row += rows.length - bottom.length + inputStart;
    if (cursor && cursor.row < 0) cursor = undefined;
    return { rows, cursor };
  }
}
