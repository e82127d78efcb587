/**
 * `skiff usage [--since 7d] [--by model|day|project] [--json]`: tokens and
 * cost over the stored sessions, one row per model, day (UTC) or project.
 * A cost is the sum of the requests whose price was known; requests without
 * one are counted and said so, never priced by guess.
 */
import { withStore } from "../store_access.ts";
import type { UsageGrouping, UsageReportRow, UsageTotals } from "../../store/usage.ts";
import { formatUsd } from "../../provider/cost.ts";
import { writeAll } from "../../ui/jsonl.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { ExitCode, UsageError } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";

export interface UsageOptions {
  since?: string;
  by?: string;
  json?: boolean;
}

const GROUPINGS: readonly UsageGrouping[] = ["model", "day", "project"];
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** `7d`, `12h`, `2w` before `now`, or a date (`2026-11-01`, UTC): epoch ms. */
export function parseSince(value: string, now: number): number {
  const relative = /^(\d+)([hdw])$/.exec(value);
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isFinite(date)) return date;
  throw new UsageError(
    `--since takes an age such as 7d, 12h or 2w, or a date such as 2026-11-01; got "${value}".`,
  );
}

export function parseGrouping(value: string | undefined): UsageGrouping {
  const by = value ?? "model";
  if ((GROUPINGS as readonly string[]).includes(by)) return by as UsageGrouping;
  throw new UsageError(`--by takes model, day or project; got "${by}".`);
}

export function usageCommand(options: UsageOptions, now = Date.now()): Promise<number> {
  try {
    const by = parseGrouping(options.by);
    const since = options.since === undefined ? undefined : parseSince(options.since, now);
    const rows: UsageReportRow[] = withStore((store) => store.usage.report({ by, since }));
    const total = sumRows(rows);
    if (options.json) {
      const sinceText = since === undefined ? null : new Date(since).toISOString();
      print(JSON.stringify({ by, since: sinceText, rows, total }));
      return Promise.resolve(ExitCode.ok);
    }
    // A model name or a folder comes from outside: shown, not obeyed.
    for (const line of usageTable(by, rows, total)) print(neutraliseControls(line));
    return Promise.resolve(ExitCode.ok);
  } catch (error) {
    return Promise.resolve(reportFatal(error));
  }
}

/** The report as text lines: a header, one line per row, the total, and a note on unknown prices. */
export function usageTable(
  by: UsageGrouping,
  rows: UsageReportRow[],
  total: UsageTotals,
): string[] {
  if (rows.length === 0) return ['No usage recorded in that period. Run something: skiff run "…"'];
  const table = [
    [by, "requests", "input", "cached", "output", "reasoning", "cost"],
    ...rows.map((row) => cells(row.key, row)),
    cells("total", total),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  const lines = table.map((row) =>
    row.map((cell, column) => column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]))
      .join("  ").trimEnd()
  );
  if (total.unpriced_requests) {
    lines.push(
      "",
      `${total.unpriced_requests} request(s) were to models with no known price: their tokens ` +
        "count, their cost does not (marked +?). Set the price in the config: " +
        `"models": {"<name>": {"cost": {"input": <USD per 1M>, "output": <USD per 1M>}}}`,
    );
  }
  return lines;
}

function cells(key: string, totals: UsageTotals): string[] {
  return [
    key,
    String(totals.requests),
    String(totals.input_tokens),
    String(totals.cached_input_tokens),
    String(totals.output_tokens),
    String(totals.reasoning_tokens),
    describeCost(totals),
  ];
}

/** "$0.0123", "$0.0123 +?" when some requests had no price, "?" when none had one. */
export function describeCost(totals: UsageTotals): string {
  if (totals.requests === 0) return "$0";
  if (totals.unpriced_requests === totals.requests) return "?";
  const known = formatUsd(totals.cost_usd);
  return totals.unpriced_requests ? `${known} +?` : known;
}

/** "1200 in (300 cached), 80 out (50 reasoning)" */
export function describeTokens(totals: UsageTotals): string {
  const cached = totals.cached_input_tokens ? ` (${totals.cached_input_tokens} cached)` : "";
  const reasoning = totals.reasoning_tokens ? ` (${totals.reasoning_tokens} reasoning)` : "";
  return `${totals.input_tokens} in${cached}, ${totals.output_tokens} out${reasoning}`;
}

function sumRows(rows: UsageReportRow[]): UsageTotals {
  const total: UsageTotals = {
    requests: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    unpriced_requests: 0,
  };
  for (const row of rows) {
    for (const field of Object.keys(total) as (keyof UsageTotals)[]) total[field] += row[field];
  }
  return total;
}

function print(text: string): void {
  writeAll(Deno.stdout, text + "\n");
}
