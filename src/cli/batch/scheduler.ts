/**
 * Runs tasks `jobs` at a time. Before each start it asks `stopReason()`
 * (Ctrl-C pressed, the endpoint down): once that names a reason no task
 * starts, the running ones are waited for, and the reason is returned.
 */
export interface PoolOptions<T> {
  jobs: number;
  /** Why no more tasks should start, or undefined to go on. */
  stopReason(): string | undefined;
  run(task: T): Promise<void>;
}

export async function runPool<T>(
  tasks: T[],
  options: PoolOptions<T>,
): Promise<{ stoppedBecause?: string; started: number }> {
  let next = 0;
  let stoppedBecause: string | undefined;
  async function lane(): Promise<void> {
    while (next < tasks.length) {
      stoppedBecause ??= options.stopReason();
      if (stoppedBecause) return;
      await options.run(tasks[next++]);
    }
  }
  const lanes = Array.from({ length: Math.max(1, Math.min(options.jobs, tasks.length)) }, lane);
  await Promise.all(lanes);
  return { stoppedBecause, started: next };
}

/** A sensible `-j` default: tasks mostly wait on the model, but each holds a Worker. */
export function defaultJobs(cores = navigator.hardwareConcurrency || 1): number {
  return Math.min(4, cores * 2);
}
