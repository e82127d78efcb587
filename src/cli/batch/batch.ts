/**
 * `skiff batch`: many tasks in one process, `-j N` at once, each its own
 * session linked to a stored batch record (resumable with `--resume`), with
 * one rate limiter for the endpoint, progress on stderr, `--json` events tagged
 * with their task, a summary and `--report`. `--shard K/N` runs a stable
 * part for a CI matrix; `skiff batch merge` joins the shards' reports
 * (docs/batch.md).
 */
import type { CommonOptions } from "../../host/setup.ts";
import { prepare, resolveWorkspace } from "../../host/setup.ts";
import type { EngineSpec } from "../../engine/types.ts";
import { DOWN_AFTER_FAILURES, RateLimiter } from "../../provider/rate_limiter.ts";
import type { Store } from "../../store/store.ts";
import { withStore } from "../store_access.ts";
import { ExitCode, UsageError } from "../exit_codes.ts";
import { numberFlag } from "../number_flags.ts";
import { reportFatal } from "../report_fatal.ts";
import { type BatchTask, ownsConflicts, parseShard, shardTasks } from "./tasks.ts";
import { defaultJobs, runPool } from "./scheduler.ts";
import { BatchProgress } from "./progress.ts";
import { runTask, type TaskRunOptions } from "./run_task.ts";
import { TaskStopper } from "./stop.ts";
import { collectTasks } from "./task_sources.ts";
import { putBackStoppedRun } from "./put_back.ts";
import { EngineWorkers } from "../../host/engine_pool.ts";
import {
  hostWriteRefusal,
  HostWriteRefused,
  namedWithin,
} from "../../sandbox/writer/host_write.ts";
import {
  batchExitCode,
  buildReport,
  countsLine,
  mergeReports,
  reportMarkdown,
  type TaskResult,
  type TaskStatus,
  writeReport,
} from "./report.ts";
import { printErrorLine } from "../../ui/safe_print.ts";

export interface BatchOptions extends CommonOptions {
  each?: string;
  prompt?: string;
  dirs?: string[];
  jobs?: string;
  dryRun?: boolean;
  json?: boolean;
  report?: string;
  resume?: string;
  shard?: string;
  until?: string;
  maxCycles?: string;
  maxTurns?: string;
  maxTime?: string;
}

/** What a batch record keeps, so `--resume <id>` needs nothing else. */
interface StoredSpec {
  tasks: BatchTask[];
  jobs: number;
  run: TaskRunOptions;
  common: CommonOptions;
}

export async function batchCommand(
  file: string | undefined,
  options: BatchOptions,
): Promise<number> {
  try {
    return await batch(file, options);
  } catch (error) {
    return reportFatal(error);
  }
}

async function batch(file: string | undefined, options: BatchOptions): Promise<number> {
  // A report path through a folder linked out: refused before any task runs.
  if (options.report) {
    const folders = [Deno.cwd(), resolveWorkspace(options.dir), ...(options.addDir ?? [])];
    const within = namedWithin(options.report, folders);
    const refused = within === undefined ? null : hostWriteRefusal(options.report, within);
    if (refused) throw refused;
  }
  return await withStore(async (store, dataDir) => {
    let batchId: string;
    let stored: StoredSpec;
    if (options.resume) {
      const found = store.batches.find(options.resume);
      if (found.length !== 1) {
        throw new UsageError(
          found.length
            ? `"${options.resume}" names ${found.length} batches; give more of the id.`
            : `no batch "${options.resume}" in ${dataDir}.`,
        );
      }
      batchId = found[0];
      stored = JSON.parse(store.batches.get(batchId)!.spec);
    } else {
      let tasks = await collectTasks(file, options);
      const shard = options.shard ? parseShard(options.shard) : undefined;
      if (shard) tasks = shardTasks(tasks, ...shard);
      const conflicts = ownsConflicts(tasks);
      if (conflicts.length) {
        throw new UsageError(`nothing was run:\n  ${conflicts.join("\n  ")}`);
      }
      stored = {
        tasks,
        jobs: numberFlag("-j", options.jobs) ?? defaultJobs(),
        run: {
          maxTurns: numberFlag("--max-turns", options.maxTurns),
          maxSeconds: numberFlag("--max-time", options.maxTime),
          verification: options.until
            ? { until: options.until, maxCycles: numberFlag("--max-cycles", options.maxCycles) }
            : undefined,
        },
        common: commonOf(options),
      };
      if (options.dryRun) {
        for (const task of tasks) {
          console.log(
            JSON.stringify({
              id: task.id,
              dir: task.dir,
              owns: task.owns,
              prompt: task.prompt,
              ...(task.until ? { until: task.until } : {}),
            }),
          );
        }
        console.error(
          `skiff: ${tasks.length} task(s) would run, -j ${stored.jobs}; nothing was run.`,
        );
        return ExitCode.ok;
      }
      batchId = store.batches.create(
        JSON.stringify(stored),
        options.shard ?? null,
        tasks.map((task) => task.id),
      );
    }
    return await execute(store, batchId, stored, options);
  });
}

function commonOf(options: BatchOptions): CommonOptions {
  const { model, agent, sandbox, sandboxBackend, addDir, allow, ask, deny, yes, trustProject } =
    options;
  return { model, agent, sandbox, sandboxBackend, addDir, allow, ask, deny, yes, trustProject };
}

async function execute(
  store: Store,
  batchId: string,
  stored: StoredSpec,
  options: BatchOptions,
): Promise<number> {
  const rows = new Map(store.batches.tasks(batchId).map((row) => [row.taskId, row]));
  // Finished tasks (succeeded or failed) are not run again; interrupted and killed ones are.
  const todo = stored.tasks.filter((task) => {
    const status = rows.get(task.id)?.status;
    return status === "pending" || status === "running";
  });
  const limiter = new RateLimiter();
  const specs = new Map<string, EngineSpec>();
  const specFor = async (task: BatchTask): Promise<EngineSpec> => {
    const key = JSON.stringify([task.dir, task.agent, task.model]);
    let spec = specs.get(key);
    if (!spec) {
      const common = {
        ...stored.common,
        dir: task.dir,
        ...(task.agent ? { agent: task.agent } : {}),
        ...(task.model ? { model: task.model } : {}),
      };
      const prepared = await prepare(common, true);
      // The limiter's buffer rides on the provider settings into each task's Worker (engine/handle.ts).
      const provider = { ...prepared.spec.provider, rateLimiter: limiter.buffer };
      spec = { ...prepared.spec, provider };
      for (const warning of spec.warnings) printErrorLine(`skiff: warning: ${warning}`);
      spec = { ...spec, warnings: [] };
      specs.set(key, spec);
    }
    return spec;
  };
  // Every workspace is prepared before the first task starts: a bad config stops the batch whole.
  for (const task of todo) await specFor(task);

  const progress = new BatchProgress(todo.length, Deno.stderr.isTerminal() && !options.json);
  const out = (value: unknown) => console.log(JSON.stringify(value));
  const running = new Set<TaskStopper>();
  let interrupted = 0;
  const onSignal = () => {
    interrupted++;
    if (interrupted === 1) {
      console.error(
        "\nskiff: stopping: no new task starts; each running task ends the tool call it is " +
          "running, then stops and is recorded for --resume (Ctrl-C again stops them at once).",
      );
      for (const task of running) task.stopAfterCurrentCalls();
    } else if (interrupted === 2) {
      console.error(
        "\nskiff: stopping the running tasks now, a running command too; they are recorded " +
          "for --resume (Ctrl-C again exits at once).",
      );
      for (const task of running) task.stopNow();
    } else Deno.exit(ExitCode.interrupted);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const started = Date.now();
  // Each task's engine starts in a Worker an earlier task with the same permissions left,
  // at most -j of them (src/host/engine_pool.ts); SKIFF_ENGINE=inline runs every engine here.
  const workers = Deno.env.get("SKIFF_ENGINE") === "inline"
    ? undefined
    : new EngineWorkers(stored.jobs);
  let pool;
  try {
    pool = await runPool(todo, {
      jobs: stored.jobs,
      stopReason: () =>
        interrupted ? "interrupted" : limiter.down()
          // The threshold, as docs/batch.md promises; the count may have gone past it since.
          ? `the endpoint failed ${DOWN_AFTER_FAILURES} times in a row`
          : undefined,
      run: async (task) => {
        const taskStart = Date.now();
        progress.taskStarted();
        if (options.json) out({ type: "batch.task.started", batch: batchId, task: task.id });
        const ended = (
          status: Exclude<TaskStatus, "pending">,
          exitCode: number,
          detail: string,
          session: string | null,
        ) => {
          store.batches.ended(
            batchId,
            task.id,
            status === "interrupted" ? "pending" : status,
            exitCode,
            detail,
          );
          progress.taskEnded(task.id, status, exitCode, detail);
          if (options.json) {
            out({
              type: "batch.task.completed",
              batch: batchId,
              task: task.id,
              session,
              exit_code: exitCode,
              ms: Date.now() - taskStart,
            });
          }
        };
        // A run stopped part-way is put back first: its edits must not land twice.
        const stoppedRun = rows.get(task.id)?.sessionId;
        if (stoppedRun) {
          const putBack = await putBackStoppedRun(
            store,
            stoppedRun,
            task.dir,
            stored.common.addDir ?? [],
          );
          progress.note(
            `skiff: ${task.id}: putting back what its stopped run ${stoppedRun} changed, ` +
              `before it runs again:\n${putBack.lines.map((line) => `  ${line}`).join("\n")}`,
          );
          if (!putBack.ok) return ended("failed", ExitCode.failed, putBack.detail, stoppedRun);
        }
        const stopper = new TaskStopper();
        running.add(stopper);
        if (interrupted === 1) stopper.stopAfterCurrentCalls();
        if (interrupted > 1) stopper.stopNow();
        const outcome = await runTask(await specFor(task), task, stored.run, {
          opened: (sessionId) => store.batches.started(batchId, task.id, sessionId),
          event: (event) => {
            stopper.observe(event);
            if (options.json) out({ ...event, task: task.id });
          },
          started: (engine) => stopper.attach(() => engine.abort()),
        }, workers);
        running.delete(stopper);
        const stopped = outcome.exitCode === ExitCode.interrupted;
        // Where an interrupted task stopped; --resume puts its changes back and starts it afresh.
        const detail = stopped ? `interrupted ${stopper.where()}`.trim() : outcome.detail;
        ended(
          stopped ? "interrupted" : outcome.exitCode === 0 ? "succeeded" : "failed",
          outcome.exitCode,
          detail,
          outcome.sessionId,
        );
      },
    });
  } finally {
    workers?.close();
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    progress.finish();
  }

  const report = buildReport(
    [batchId],
    store.batches.get(batchId)?.shard ? [store.batches.get(batchId)!.shard!] : [],
    resultsOf(store, batchId),
    Date.now() - started,
  );
  let reportFailed = false;
  if (options.report) {
    // Where a repository or the tasks' agents could have put a link (src/sandbox/writer/host_write.ts).
    const folders = [
      Deno.cwd(),
      resolveWorkspace(options.dir),
      ...[...specs.values()].flatMap((spec) => [spec.workspace, ...spec.sandbox.addDirs]),
    ];
    try {
      await writeReport(options.report, report, folders);
    } catch (error) {
      reportFailed = true;
      const again = `The results are kept: skiff batch --resume ${batchId} --report <file> ` +
        "writes the report again.";
      console.error(
        error instanceof HostWriteRefused
          ? `skiff: ${error.message}\n${error.hint} ${again}`
          : `skiff: could not write the report to ${options.report} (${
            (error as Error).message
          }). ${again}`,
      );
    }
  }
  // Ctrl-C with every task already started stops no start, yet the batch was interrupted.
  const stoppedBecause = pool.stoppedBecause ?? (interrupted ? "interrupted" : undefined);
  const exitCode = stoppedBecause && interrupted
    ? ExitCode.interrupted
    : stoppedBecause && limiter.down()
    ? ExitCode.provider
    : reportFailed && batchExitCode(report) === ExitCode.ok
    ? ExitCode.failed
    : batchExitCode(report);
  if (options.json) {
    out({ type: "batch.completed", batch: batchId, counts: report.counts, exit_code: exitCode });
  } else {
    console.error(reportMarkdown(report));
  }
  if (stoppedBecause) {
    console.error(
      `skiff: batch ${batchId} stopped (${stoppedBecause}) after starting ${pool.started} ` +
        `of ${todo.length} task(s); ${
          countsLine(report)
        }. Run the rest: skiff batch --resume ${batchId}`,
    );
  } else if (report.counts.total !== report.counts.succeeded) {
    console.error(`skiff: batch ${batchId}: ${countsLine(report)}.`);
  }
  return exitCode;
}

function resultsOf(store: Store, batchId: string): TaskResult[] {
  return store.batches.tasks(batchId).map((row) => ({
    id: row.taskId,
    // Started and not finished (stopped, or its process killed): interrupted; never started: pending.
    status: row.status === "running" || (row.status === "pending" && row.sessionId !== null)
      ? "interrupted"
      : row.status,
    exitCode: row.exitCode,
    sessionId: row.sessionId,
    ms: row.startedAt !== null && row.endedAt !== null ? row.endedAt - row.startedAt : null,
    detail: row.detail,
  }));
}

/** `skiff batch merge <reports…>`: one summary of several shards' JSON reports. */
export async function mergeCommand(files: string[], options: { report?: string }): Promise<number> {
  try {
    if (!files.length) {
      throw new UsageError("name the shards' JSON reports: skiff batch merge a.json b.json");
    }
    const report = mergeReports(files.map((file) => {
      try {
        return { file, text: Deno.readTextFileSync(file) };
      } catch (error) {
        throw new UsageError(`cannot read ${file} (${(error as Error).message}).`);
      }
    }));
    if (options.report) await writeReport(options.report, report, [Deno.cwd()]);
    console.log(reportMarkdown(report));
    return batchExitCode(report);
  } catch (error) {
    return reportFatal(error);
  }
}
