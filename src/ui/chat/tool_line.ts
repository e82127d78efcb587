/**
 * One tool call as the chat shows it: a line with ✓ or ✗, the tool, the
 * argument a person knows it by, how a command ended and how long it took
 * (`✓ bash npm test (exit 0) 1.2s`). Under it, folded unless expanded: an
 * edit's coloured diff, a command's first lines of output with a count of
 * the rest, a failure's reason and hint. All of it is model or tool text,
 * made safe before skiff's colours are added.
 */
import type { EventOf } from "../../contracts/events.ts";
import { neutraliseControls } from "../safe_text.ts";
import { diffBlock } from "../text_diff.ts";
import type { Style } from "./style.ts";
import { truncate } from "./width.ts";
import { describeInput, modelLabel } from "../tool_title.ts";

/** Output lines of a command shown while folded. @default 4 */
export const FOLDED_OUTPUT_LINES = 4;
/** Diff lines shown while folded. @default 20 */
export const FOLDED_DIFF_LINES = 20;
/** Lines shown when expanded; a longer output is still cut, with its count. @default 400 */
export const EXPANDED_LINES = 400;

/** How the chat says to expand a folded call; the input side binds the key. */
export const EXPAND_HINT = "Ctrl-O expands";

export interface ToolLineOptions {
  style: Style;
  columns: number;
  expanded?: boolean;
}

/** `120ms`, `1.2s`, `2m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/** The argument a running or finished call is known by, on one line (src/ui/tool_title.ts). */
export function keyArgument(tool: string, title: string, input: unknown): string {
  const text = (title || describeInput(input)).trim().replace(/\r?\n/g, " ⏎ ");
  const rest = text.startsWith(`${tool} `) ? text.slice(tool.length + 1) : text;
  return neutraliseControls(rest);
}

function endOf(metadata: Record<string, unknown> | undefined): { text: string; failed: boolean } {
  if (!metadata) return { text: "", failed: false };
  if (typeof metadata.signal === "string" && metadata.signal) {
    return { text: `killed by ${metadata.signal}`, failed: true };
  }
  if (metadata.timedOut) return { text: "timed out", failed: true };
  if (metadata.cancelled) return { text: "stopped", failed: true };
  if (typeof metadata.exitCode === "number") {
    return { text: `exit ${metadata.exitCode}`, failed: metadata.exitCode !== 0 };
  }
  // A file tool's new errors from the language server (src/lsp/): the call itself succeeded.
  const errors = (metadata.diagnostics as { errors?: unknown[] } | undefined)?.errors?.length;
  if (errors) return { text: `${errors} new error${errors === 1 ? "" : "s"}`, failed: false };
  return { text: "", failed: false };
}

/** The call's head line and, below it, what it folds or (expanded) shows. */
export function formatToolCall(
  event: EventOf<"tool.completed">,
  input: unknown,
  options: ToolLineOptions,
): string[] {
  const { style, columns } = options;
  const end = endOf(event.metadata);
  const failed = !event.ok || end.failed;
  const mark = failed ? style.red("✗") : style.green("✓");
  const tail = [end.text ? `(${end.text})` : "", formatDuration(event.duration_ms)]
    .filter(Boolean).join(" ");
  const name = neutraliseControls(event.tool);
  const room = columns - (name.length + tail.length + 4);
  const argument = truncate(keyArgument(event.tool, event.title, input), Math.max(8, room));
  // The model's label, if any, after what ran, dimmed, in what room is left.
  const labelRoom = room - argument.length - 2;
  const label = labelRoom >= 8
    ? truncate(neutraliseControls(modelLabel(input, argument)), labelRoom)
    : "";
  const lines = [
    `${mark} ${style.bold(name)}${argument ? ` ${argument}` : ""} ${style.dim(tail)}${
      label ? `  ${style.dim(label)}` : ""
    }`,
  ];

  if (!event.ok && event.error) {
    const reason = neutraliseControls(`${event.error.code}: ${event.error.message}`);
    lines.push(...fold(reason, options, style.red));
    if (event.error.hint) lines.push(`  ${style.dim(neutraliseControls(event.error.hint))}`);
    return lines;
  }
  const diff = event.metadata?.diff;
  if (typeof diff === "string" && diff.trim()) {
    const block = diffBlock(diff, {
      colour: style.color,
      maxLines: options.expanded ? EXPANDED_LINES : FOLDED_DIFF_LINES,
      sessionId: event.session_id,
    });
    lines.push(...block.replace(/\n$/, "").split("\n"));
    return lines;
  }
  if (typeof event.metadata?.exitCode === "number" || options.expanded) {
    lines.push(...fold(neutraliseControls(event.output), options, style.dim));
  }
  return lines;
}

/** `text` indented under the head line, cut to the folded or expanded length with a count. */
function fold(text: string, options: ToolLineOptions, colour: (text: string) => string): string[] {
  const body = text.replace(/\n+$/, "");
  if (!body) return [];
  const all = body.split("\n");
  const limit = options.expanded ? EXPANDED_LINES : FOLDED_OUTPUT_LINES;
  const shown = all.slice(0, limit).map((line) =>
    `  ${colour(truncate(line, options.columns - 2))}`
  );
  const left = all.length - shown.length;
  if (left > 0) {
    const how = options.expanded ? "" : ` (${EXPAND_HINT})`;
    shown.push(
      `  ${
        options.style.dim(`… ${left} more line${left === 1 ? "" : "s"}, ${all.length} in all${how}`)
      }`,
    );
  }
  return shown;
}
