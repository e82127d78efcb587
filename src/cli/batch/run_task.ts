/**
 * One batch task: its own engine with the task's workspace, `owns` narrowing
 * and the batch's shared rate gate, its own stored session, headless (an
 * approval question is refused, as in `skiff run` without a terminal). The
 * engine runs in a Worker an earlier task with the same permissions left
 * (src/host/engine_pool.ts), or in its own, as `skiff run` starts one.
 */
import type { EngineHandle } from "../../engine/handle.ts";
import type { EngineSpec, RunRequest } from "../../engine/types.ts";
import type { Denial, SkiffEvent } from "../../contracts/events.ts";
import { shellLine } from "../../permission/hints.ts";
import { startEngine } from "../../host/start.ts";
import type { EngineWorkers } from "../../host/engine_pool.ts";
import { ExitCode, OUTCOME_EXIT_CODES } from "../exit_codes.ts";
import type { BatchTask } from "./tasks.ts";

/** What every task of the batch gets besides its own fields. */
export interface TaskRunOptions {
  maxTurns?: number;
  maxSeconds?: number;
  /** `--until` for tasks that name none; `maxCycles` with it (the engine's verification). */
  verification?: { until?: string; maxCycles?: number };
}

export interface TaskOutcome {
  sessionId: string | null;
  exitCode: number;
  detail: string;
}

export interface TaskHooks {
  /** The session exists: record it before the model is asked anything. */
  opened(sessionId: string): void;
  event(event: SkiffEvent): void;
  /** Lets Ctrl-C reach the running engine. */
  started(engine: EngineHandle): void;
}

export async function runTask(
  base: EngineSpec,
  task: BatchTask,
  options: TaskRunOptions,
  hooks: TaskHooks,
  /** Workers kept from earlier tasks; @default none, a Worker of the task's own */
  workers?: EngineWorkers,
): Promise<TaskOutcome> {
  const spec: EngineSpec = {
    ...base,
    owns: task.owns,
    interactive: false,
    title: `batch: ${task.id}`,
  };
  let detail = "";
  let sessionId: string | null = null;
  const io = {
    event: (event: SkiffEvent) => {
      if (event.type === "error") detail = event.message.split("\n")[0];
      if (event.type === "session.completed" && !detail && event.denials.length) {
        detail = refusedDetail(event.denials);
      }
      hooks.event(event);
    },
    ask: () => Promise.resolve("deny" as const),
  };
  const engine = workers ? workers.startEngine(spec, io) : await startEngine(spec, io);
  hooks.started(engine);
  try {
    sessionId = await engine.open({});
    hooks.opened(sessionId);
    const until = task.until ?? options.verification?.until;
    // `until`/`maxCycles` are read by engines that verify (issue 14's --until); others ignore them.
    const request: RunRequest & { until?: string; maxCycles?: number } = {
      prompt: task.prompt,
      exitCodes: OUTCOME_EXIT_CODES,
      maxTurns: options.maxTurns,
      deadline: options.maxSeconds ? Date.now() + options.maxSeconds * 1000 : undefined,
      ...(until ? { until, maxCycles: options.verification?.maxCycles } : {}),
    };
    const result = await engine.run(request);
    return { sessionId, exitCode: result.exitCode, detail: result.exitCode ? detail : "" };
  } catch (error) {
    return {
      sessionId,
      exitCode: ExitCode.failed,
      detail: (error as Error).message.split("\n")[0],
    };
  } finally {
    await engine.close();
  }
}

/**
 * The first refused call of a task and the flags that allow it, on one line
 * (`skiff run` prints the same as its denial summary): `refused: bash rm x
 * (to allow it: --allow 'bash(rm *)')`, `… and 2 more` after it.
 */
export function refusedDetail(denials: Denial[]): string {
  const [first] = denials;
  const subject = first.patterns.length ? ` ${first.patterns[0].split("\n")[0]}` : "";
  const allow = first.allow_with?.length
    ? ` (to allow it: ${shellLine(first.allow_with)})`
    : " (a deny rule; no flag allows it)";
  const more = denials.length > 1 ? `; and ${denials.length - 1} more` : "";
  return `refused: ${first.tool}${subject}${allow}${more}`;
}
