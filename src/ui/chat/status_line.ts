/**
 * The status line at the bottom: model, agent, sandbox mode, how full the
 * context is (% of the model's window), tokens and cost this session, and
 * while the agent works a spinner with the time since the turn began. It
 * always fits one row: when the terminal is narrow the least useful parts
 * go first (cost, then tokens, agent, sandbox), and the model name is cut last.
 */
import { neutraliseControls } from "../safe_text.ts";
import type { StatusInfo } from "./types.ts";
import type { Style } from "./style.ts";
import { textWidth, truncate } from "./width.ts";

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** The spinner on a terminal that cannot be trusted with braille (plain mode). */
export const PLAIN_SPINNER = ["-", "\\", "|", "/"];

export interface Working {
  /** When the current turn began (ms since the epoch). */
  since: number;
  now: number;
  /** Spinner frame number. */
  frame: number;
  /** What is happening (`thinking`, `bash npm test`). */
  doing?: string;
}

/** `12.3k` for 12 345 tokens. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

function elapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return seconds < 60
    ? `${seconds}s`
    : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/** One row of at most `columns` cells. */
export function formatStatusLine(
  info: StatusInfo,
  working: Working | undefined,
  style: Style,
  columns: number,
): string {
  const parts: { text: string; drop: number }[] = [];
  if (working) {
    const frames = style.color ? SPINNER : PLAIN_SPINNER;
    const spin = frames[working.frame % frames.length];
    const doing = working.doing ? ` ${working.doing}` : "";
    parts.push({ text: `${spin} ${elapsed(working.now - working.since)}${doing}`, drop: 11 });
  }
  parts.push({ text: info.model || "no model", drop: 10 });
  if (info.agent) parts.push({ text: info.agent, drop: 3 });
  if (info.sandbox) parts.push({ text: info.sandbox, drop: 2 });
  if (info.windowAssumed) {
    // A percentage of a guessed window would look like a measurement.
    parts.push({ text: "ctx ?", drop: 8 });
  } else if (info.window > 0) {
    const percent = Math.min(999, Math.round((info.contextTokens / info.window) * 100));
    parts.push({ text: `ctx ${percent}%`, drop: 8 });
  }
  parts.push({ text: `${formatTokens(info.totalTokens)} tok`, drop: 4 });
  if (info.costUsd !== undefined) parts.push({ text: `$${info.costUsd.toFixed(2)}`, drop: 1 });

  const separator = " · ";
  const fits = () =>
    parts.reduce((sum, part) => sum + textWidth(part.text), 0) +
        separator.length * (parts.length - 1) <= columns;
  // The spinner and the model are never dropped: the model is cut instead.
  while (!fits() && parts.some((part) => part.drop < 10)) {
    const lowest = parts.reduce((low, part) => (part.drop < low.drop ? part : low));
    parts.splice(parts.indexOf(lowest), 1);
  }
  // Model names can come from the endpoint's /models list: shown, never obeyed.
  const text = neutraliseControls(parts.map((part) => part.text).join(separator));
  const line = truncate(text, columns);
  return style.dim(line);
}
