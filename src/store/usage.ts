/**
 * Token usage and cost, one row per model request: the session it was for,
 * that session's parent (a subagent's), the model, tokens in/out, cached
 * (of in) and reasoning (of out), and the cost as the server reported it or
 * from the model's price when known (null otherwise: never a guess). A
 * session's totals include its subagents'; `skiff usage` reads the report.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Usage } from "../contracts/events.ts";
import type { Statements } from "./_rows.ts";

/** Totals over some requests. */
export interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** Of `output_tokens`, those spent reasoning (as far as the servers said). */
  reasoning_tokens: number;
  /** The sum of the requests whose price was known. */
  cost_usd: number;
  /** Requests with no known price: their tokens count, their cost is unknown. */
  unpriced_requests: number;
}

export type UsageGrouping = "model" | "day" | "project";

export interface UsageReportRow extends UsageTotals {
  /** The model name, the day (YYYY-MM-DD, UTC) or the project's folder. */
  key: string;
}

/** The session and every subagent session under it, at any depth. */
const SESSION_TREE = `WITH RECURSIVE tree(id) AS (
  SELECT ? UNION SELECT s.id FROM sessions s JOIN tree ON s.parent_id = tree.id
)`;

const SUMS = `COUNT(*) AS requests, COALESCE(SUM(u.input_tokens), 0) AS input_tokens,
  COALESCE(SUM(u.output_tokens), 0) AS output_tokens,
  COALESCE(SUM(u.cached_input_tokens), 0) AS cached_input_tokens,
  COALESCE(SUM(u.reasoning_tokens), 0) AS reasoning_tokens,
  COALESCE(SUM(u.cost_usd), 0) AS cost_usd,
  COALESCE(SUM(u.cost_usd IS NULL), 0) AS unpriced_requests`;

const GROUP_KEY: Record<UsageGrouping, string> = {
  model: "u.model",
  day: "date(u.created_at / 1000, 'unixepoch')",
  project: "s.workspace",
};

export class UsageTable {
  constructor(private readonly sql: Statements, private readonly now: () => number) {}

  /**
   * One model request's usage: a row, and the session's running totals
   * (`turnsDelta` counts finished turns), in one transaction.
   */
  record(sessionId: string, model: string, usage: Usage, turnsDelta = 0): void {
    const at = this.now();
    this.sql.transaction(() => {
      this.sql.run(
        `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
         total_tokens = total_tokens + ?, turns = turns + ?, updated_at = ? WHERE id = ?`,
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        turnsDelta,
        at,
        sessionId,
      );
      this.sql.run(
        `INSERT INTO usage (session_id, parent_id, model, input_tokens, output_tokens,
           cached_input_tokens, reasoning_tokens, cost_usd, created_at)
         SELECT id, parent_id, ?, ?, ?, ?, ?, ?, ? FROM sessions WHERE id = ?`,
        model,
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_input_tokens ?? null,
        usage.reasoning_tokens ?? null,
        usage.cost_usd ?? null,
        at,
        sessionId,
      );
    });
  }

  /** The newest row's id (0 when none): what a run spends is counted from here. */
  lastId(): number {
    return Number(this.sql.get("SELECT COALESCE(MAX(id), 0) AS id FROM usage")?.id ?? 0);
  }

  /** A session's totals with its subagents', counting rows after `afterId` only when given. */
  sessionTotals(sessionId: string, afterId = 0): UsageTotals {
    const row = this.sql.get(
      `${SESSION_TREE} SELECT ${SUMS} FROM usage u WHERE u.session_id IN (SELECT id FROM tree)
       AND u.id > ?`,
      sessionId,
      afterId,
    );
    return toTotals(row ?? {});
  }

  /** The session's own totals, its subagents left out. */
  ownTotals(sessionId: string): UsageTotals {
    return toTotals(
      this.sql.get(`SELECT ${SUMS} FROM usage u WHERE u.session_id = ?`, sessionId) ?? {},
    );
  }

  /** Totals per model, day or project since `since` (epoch ms), largest cost, then tokens, first. */
  report(options: { by: UsageGrouping; since?: number; workspace?: string }): UsageReportRow[] {
    const where = ["u.created_at >= ?"];
    const params: SQLInputValue[] = [options.since ?? 0];
    if (options.workspace !== undefined) {
      where.push("s.workspace = ?");
      params.push(options.workspace);
    }
    const key = GROUP_KEY[options.by];
    const order = options.by === "day"
      ? "key"
      : "SUM(u.cost_usd) DESC, SUM(u.input_tokens + u.output_tokens) DESC";
    return this.sql.all(
      `SELECT ${key} AS key, ${SUMS} FROM usage u JOIN sessions s ON s.id = u.session_id
       WHERE ${where.join(" AND ")} GROUP BY ${key} ORDER BY ${order}`,
      ...params,
    ).map((row) => ({ key: String(row.key), ...toTotals(row) }));
  }
}

/** Totals as a `Usage`: its cost only when every request in it had a price. */
export function totalsAsUsage(totals: UsageTotals): Usage {
  return {
    input_tokens: totals.input_tokens,
    output_tokens: totals.output_tokens,
    total_tokens: totals.input_tokens + totals.output_tokens,
    ...(totals.cached_input_tokens ? { cached_input_tokens: totals.cached_input_tokens } : {}),
    ...(totals.reasoning_tokens ? { reasoning_tokens: totals.reasoning_tokens } : {}),
    ...(totals.requests && !totals.unpriced_requests ? { cost_usd: totals.cost_usd } : {}),
  };
}

function toTotals(row: Record<string, unknown>): UsageTotals {
  return {
    requests: Number(row.requests ?? 0),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    cached_input_tokens: Number(row.cached_input_tokens ?? 0),
    reasoning_tokens: Number(row.reasoning_tokens ?? 0),
    cost_usd: Number(row.cost_usd ?? 0),
    unpriced_requests: Number(row.unpriced_requests ?? 0),
  };
}
