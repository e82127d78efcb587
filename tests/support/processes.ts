/**
 * The machine's live processes as tests look for them: what a command left
 * running, found by its command line in /proc (Linux).
 */

/**
 * Pids of live processes (zombies left out) whose arguments `match`; this
 * test process is never one of them.
 */
export function liveProcesses(match: (args: string[]) => boolean): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const args = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      // "pid (command) state …": the command may hold spaces and parentheses.
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
      if (state !== "Z" && state !== "X" && match(args.slice(0, -1))) {
        found.push(Number(entry.name));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Live processes whose arguments, joined by spaces, hold `text`. */
export function processesHolding(text: string): number[] {
  return liveProcesses((args) => args.join(" ").includes(text));
}

/** A `sleep <marker>` (a command a test started, found by its unusual argument) is running. */
export function sleeping(marker: string): boolean {
  return processesHolding(`sleep ${marker}`).length > 0;
}
