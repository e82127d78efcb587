/**
 * `skiff sessions stats [--dir p] [--all] [--since 7d] [--json]`: where failed
 * runs failed, in this workspace unless `--all` (the scope `sessions list`
 * has). Every run (one prompt of a top-level session) that did not succeed counts
 * once, under the layer and reason its `session.completed` carries; runs
 * stored before that field existed are classified from their stored events
 * by the same table (src/engine/attribution.ts) and counted as inferred. The
 * store is only read.
 */
import { FAILURE_LAYERS, runEnds, type StoredAttribution } from "../../engine/attribution.ts";
import type { FailureLayer } from "../../contracts/events.ts";
import { resolveWorkspace } from "../../host/setup.ts";
import type { Store } from "../../store/store.ts";
import { withStore } from "../store_access.ts";
import { writeAll } from "../../ui/jsonl.ts";
import { ExitCode } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";
import { parseSince } from "./usage.ts";

/** Enough for any store a person keeps; stats read every top-level session. */
const ALL_SESSIONS = 1_000_000;

export interface FailureStats {
  /** ISO time, or null for the whole store. */
  since: string | null;
  /** The workspace whose runs are counted, or null for every workspace (`--all`). */
  workspace: string | null;
  runs: number;
  failures: number;
  /** Failures classified now from stored events (stored before the field existed). */
  inferred: number;
  /** Share of failures in the unknown layer, 0..1 (0 when none failed). */
  unknown_share: number;
  layers: { layer: FailureLayer; count: number; share: number }[];
  reasons: { layer: FailureLayer; reason: string; count: number; share: number }[];
}

/** Counts and shares over the failed runs found, every layer listed even at 0. */
export function summariseFailures(
  runs: number,
  failures: readonly StoredAttribution[],
  since: string | null,
  workspace: string | null = null,
): FailureStats {
  const share = (count: number) => failures.length ? count / failures.length : 0;
  const layers = FAILURE_LAYERS.map((layer) => {
    const count = failures.filter((failure) => failure.layer === layer).length;
    return { layer, count, share: share(count) };
  });
  const byReason = new Map<string, { layer: FailureLayer; reason: string; count: number }>();
  for (const failure of failures) {
    const key = `${failure.layer}/${failure.reason}`;
    const entry = byReason.get(key) ?? { layer: failure.layer, reason: failure.reason, count: 0 };
    entry.count++;
    byReason.set(key, entry);
  }
  const reasons = [...byReason.values()]
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
    .map((entry) => ({ ...entry, share: share(entry.count) }));
  return {
    since,
    workspace,
    runs,
    failures: failures.length,
    inferred: failures.filter((failure) => failure.inferred).length,
    unknown_share: share(layers.find((entry) => entry.layer === "unknown")!.count),
    layers,
    reasons,
  };
}

/**
 * Every top-level run ended at or after `since` (epoch ms), in `workspace`
 * (every workspace when undefined), with the failed ones' attributions.
 */
export function collectRuns(
  store: Store,
  since: number | undefined,
  workspace?: string,
): { runs: number; failures: StoredAttribution[] } {
  let runs = 0;
  const failures: StoredAttribution[] = [];
  for (const session of store.listSessions({ workspace, limit: ALL_SESSIONS })) {
    for (const end of runEnds(store.listEvents(session.id))) {
      if (since !== undefined && Date.parse(end.timestamp) < since) continue;
      runs++;
      if (end.attribution) failures.push(end.attribution);
    }
  }
  return { runs, failures };
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/** The stats as a person reads them. */
export function formatFailureStats(stats: FailureStats): string[] {
  const when = stats.since ? ` since ${stats.since.slice(0, 16).replace("T", " ")} UTC` : "";
  const lines = [
    `${stats.failures} of ${stats.runs} runs${when} did not succeed.`,
    stats.workspace
      ? `Counted: runs in ${stats.workspace} (every workspace: --all).`
      : "Counted: runs in every workspace.",
  ];
  if (stats.failures === 0) return lines;
  lines.push("", "layer         runs   share");
  for (const entry of stats.layers) {
    lines.push(
      `${entry.layer.padEnd(12)} ${String(entry.count).padStart(5)}  ${
        percent(entry.share).padStart(6)
      }`,
    );
  }
  lines.push("", "reason");
  for (const entry of stats.reasons) {
    lines.push(
      `${`${entry.layer}/${entry.reason}`.padEnd(36)} ${String(entry.count).padStart(5)}  ${
        percent(entry.share).padStart(6)
      }`,
    );
  }
  lines.push("", `unknown: ${percent(stats.unknown_share)} of failures`);
  if (stats.inferred) {
    lines.push(
      `inferred: ${stats.inferred} stored before runs carried their attribution, ` +
        "classified now from their events (the store is not changed)",
    );
  }
  return lines;
}

export function sessionsStats(
  options: { dir?: string; all?: boolean; since?: string; json?: boolean },
): Promise<number> {
  try {
    const workspace = options.all ? undefined : resolveWorkspace(options.dir);
    const now = Date.now();
    const since = options.since === undefined ? undefined : parseSince(options.since, now);
    const stats: FailureStats = withStore((store) => {
      const { runs, failures } = collectRuns(store, since, workspace);
      return summariseFailures(
        runs,
        failures,
        since === undefined ? null : new Date(since).toISOString(),
        workspace ?? null,
      );
    });
    const text = options.json ? JSON.stringify(stats) : formatFailureStats(stats).join("\n");
    writeAll(Deno.stdout, text + "\n");
    return Promise.resolve(ExitCode.ok);
  } catch (error) {
    return Promise.resolve(reportFatal(error));
  }
}
