/**
 * Which run is writing a session, and whether it still lives. A run is named
 * by a random run id and by its process: host, pid, and the process's start
 * time from /proc, so a pid the system has since given to another program is
 * not taken for it. Where /proc cannot answer (another host, macOS, a thread
 * without read access to /proc) the run's heartbeat does: a run that has not
 * beaten for `STALE_AFTER_MS` is taken for dead.
 */

export interface RunOwner {
  /** `run_` and random characters; named to the user when a session is busy. */
  run_id: string;
  host: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where unknown. */
  pid_started: string | null;
}

export type Liveness = "alive" | "dead" | "unknown";

/** How often a run renews its heartbeat. */
export const HEARTBEAT_MS = 10_000;
/** A run whose liveness /proc cannot tell is taken for dead after this long without a beat. */
export const STALE_AFTER_MS = 60_000;

/**
 * This process as a run owner. Reads /proc/self/stat where it exists, which
 * Deno allows only with `--allow-all`; without, the start time is unknown.
 */
export function currentRunOwner(): RunOwner {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const random = [...bytes].map((byte) => byte.toString(36).padStart(2, "0")).join("");
  return {
    run_id: `run_${random}`,
    host: hostName(),
    pid: Deno.pid,
    pid_started: processStat(Deno.pid)?.started ?? null,
  };
}

/**
 * Whether `owner`'s process still runs, asked of /proc: gone, a zombie, or a
 * pid now used by a process started at another time is dead. "unknown" when
 * /proc cannot tell (another host, no /proc, no right to read it: Deno wants
 * `--allow-all` for /proc/<pid>).
 */
export function processLiveness(owner: RunOwner): Liveness {
  if (owner.host !== hostName() || owner.pid_started === null) return "unknown";
  const file = `/proc/${owner.pid}/stat`;
  // The engine's Worker may not read /proc: ask, rather than be refused (or prompted).
  if (Deno.permissions.querySync({ name: "read", path: file }).state !== "granted") {
    return "unknown";
  }
  let stat: ProcessStat | null;
  try {
    stat = processStat(owner.pid, true);
  } catch {
    return "unknown";
  }
  if (stat === null) return "dead";
  // Z: killed but not yet reaped by its parent; X: being removed.
  if (stat.state === "Z" || stat.state === "X") return "dead";
  return stat.started === owner.pid_started ? "alive" : "dead";
}

interface ProcessStat {
  state: string;
  started: string;
}

/**
 * The state and start time of `pid`, null when there is no such process.
 * Other failures (no /proc, no permission) return null, or throw when `strict`.
 */
function processStat(pid: number, strict = false): ProcessStat | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      // No such process, or no /proc at all: tell them apart.
      if (!strict) return null;
      if (hasProc()) return null;
    }
    if (strict) throw error;
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  const started = fields[19];
  return started ? { state: fields[0], started } : null;
}

function hasProc(): boolean {
  try {
    return Deno.statSync("/proc/self/stat").isFile;
  } catch {
    return false;
  }
}

function hostName(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}
