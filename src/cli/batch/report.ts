/**
 * A batch's results: the summary table shown at the end, the `--report`
 * file (Markdown or JSON, by its extension), the exit code, and `skiff batch
 * merge`, which joins the JSON reports of several shards into one.
 */
import { ExitCode, UsageError } from "../exit_codes.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { namedWithin, replacedLinkNotice, writeHostFile } from "../../sandbox/writer/host_write.ts";

/**
 * One vocabulary for the progress line, the summary and the report: a task
 * succeeded, failed, was interrupted (started, stopped before it ended; run
 * again by `--resume`), or is pending (not run yet).
 */
export type TaskStatus = "succeeded" | "failed" | "interrupted" | "pending";

export interface TaskResult {
  id: string;
  status: TaskStatus;
  exitCode: number | null;
  sessionId: string | null;
  /** Wall time of the task, ms; null when it did not run. */
  ms: number | null;
  detail: string;
}

export interface BatchReport {
  /** Batch ids: one, or one per shard after a merge. */
  batches: string[];
  shards: string[];
  tasks: TaskResult[];
  counts: {
    total: number;
    succeeded: number;
    failed: number;
    interrupted: number;
    pending: number;
  };
  /** Wall time of the batch (the longest shard's after a merge), ms. */
  wallMs: number;
}

export function buildReport(
  batches: string[],
  shards: string[],
  tasks: TaskResult[],
  wallMs: number,
): BatchReport {
  const count = (status: TaskResult["status"]) => tasks.filter((t) => t.status === status).length;
  return {
    batches,
    shards,
    tasks,
    counts: {
      total: tasks.length,
      succeeded: count("succeeded"),
      failed: count("failed"),
      interrupted: count("interrupted"),
      pending: count("pending"),
    },
    wallMs,
  };
}

const SEVERE = [ExitCode.denied, ExitCode.provider, ExitCode.limit] as number[];

/**
 * 0 only when every task succeeded. When every task failed with the same one
 * of 3/4/5 (all denied, the endpoint failed for all, all hit a limit), that
 * code; otherwise 1.
 */
export function batchExitCode(report: BatchReport): number {
  const { total, succeeded } = report.counts;
  if (total === succeeded) return ExitCode.ok;
  const codes = new Set(report.tasks.map((task) => task.exitCode));
  const unfinished = report.counts.pending + (report.counts.interrupted ?? 0);
  if (succeeded === 0 && unfinished === 0 && codes.size === 1) {
    const [code] = codes;
    if (code !== null && SEVERE.includes(code)) return code;
  }
  return ExitCode.failed;
}

/**
 * One line, in the progress line's words: "12 task(s): 10 succeeded, 1
 * failed, 1 not run" ("…, 2 interrupted, …" when some were stopped).
 */
export function countsLine(report: BatchReport): string {
  const { total, succeeded, failed, interrupted, pending } = report.counts;
  return `${total} task(s): ${succeeded} succeeded, ${failed} failed, ` +
    (interrupted ? `${interrupted} interrupted, ` : "") + `${pending} not run`;
}

function seconds(ms: number | null): string {
  return ms === null ? "-" : `${(ms / 1000).toFixed(1)}s`;
}

/** The summary as Markdown (also what the terminal shows). */
export function reportMarkdown(report: BatchReport): string {
  const cell = (text: string) => neutraliseControls(text).replace(/\|/g, "\\|");
  const lines = [
    `# skiff batch ${report.batches.join(", ")}`,
    "",
    `${countsLine(report)}; wall ${seconds(report.wallMs)}` +
    (report.shards.length ? `; shards ${report.shards.join(", ")}` : ""),
    "",
    "| task | status | exit | time | session | detail |",
    "| ---- | ------ | ---- | ---- | ------- | ------ |",
  ];
  for (const task of report.tasks) {
    lines.push(
      `| ${cell(task.id)} | ${task.status} | ${task.exitCode ?? "-"} | ${seconds(task.ms)} | ${
        task.sessionId ?? "-"
      } | ${cell(task.detail)} |`,
    );
  }
  return lines.join("\n");
}

/**
 * Write `--report`: `.json` gets the report as JSON, anything else Markdown.
 * `folders` (the current folder, the workspace, its --add-dirs) are where a
 * repository or the agent may have put a link: no link there is followed
 * (src/sandbox/writer/host_write.ts); throws HostWriteRefused for a folder linked out.
 */
export async function writeReport(
  file: string,
  report: BatchReport,
  folders: readonly string[],
): Promise<void> {
  const text = file.endsWith(".json") ? JSON.stringify(report, null, 2) : reportMarkdown(report);
  const written = await writeHostFile(file, text + "\n", { within: namedWithin(file, folders) });
  const notice = replacedLinkNotice(file, written);
  if (notice) console.error(notice);
}

/** `skiff batch merge`: the JSON reports of several shards as one; a task twice is refused. */
export function mergeReports(reports: { file: string; text: string }[]): BatchReport {
  const batches: string[] = [];
  const shards: string[] = [];
  const tasks: TaskResult[] = [];
  const seen = new Map<string, string>();
  let wallMs = 0;
  for (const { file, text } of reports) {
    let report: BatchReport;
    try {
      report = JSON.parse(text);
    } catch {
      throw new UsageError(
        `${file} is not a JSON batch report; write shard reports with --report <name>.json.`,
      );
    }
    if (!Array.isArray(report?.tasks) || !Array.isArray(report.batches)) {
      throw new UsageError(`${file} is not a skiff batch report (no "tasks" list).`);
    }
    for (const task of report.tasks) {
      const other = seen.get(task.id);
      if (other) {
        throw new UsageError(
          `task "${task.id}" is in both ${other} and ${file}; merge the reports of one batch's shards.`,
        );
      }
      seen.set(task.id, file);
      tasks.push(task);
    }
    batches.push(...report.batches);
    shards.push(...(report.shards ?? []));
    wallMs = Math.max(wallMs, report.wallMs ?? 0);
  }
  return buildReport(batches, shards, tasks, wallMs);
}
