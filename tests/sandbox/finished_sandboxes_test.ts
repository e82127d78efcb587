/**
 * The cgroup steps that start a sandbox as root (`ROOT_PIDS_STEP`, one per
 * command; `POOL_START_STEP`, one per session sandbox) clear the folders of
 * sandboxes that are over, and end what such a folder still holds: a
 * bubblewrap killed during its setup leaves its child waiting forever in
 * the sandbox's cgroup. Each step runs here with `true` in place of bwrap;
 * a finished sandbox is a folder named after a pid that is gone, holding a
 * `sleep`. Needs root and a writable `pids` cgroup.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ROOT_PIDS_STEP } from "../../src/sandbox/limits.ts";
import { POOL_START_STEP } from "../../src/sandbox/bwrap/pool_steps.ts";
import { exists as existsSync } from "../../src/definitions/agents/discovery.ts";

/** The pids cgroup root a step writes in, as the steps choose it, or null. */
function cgroupRoot(): string | null {
  for (const root of ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"]) {
    try {
      Deno.openSync(`${root}/cgroup.procs`, { write: true }).close();
    } catch {
      continue;
    }
    if (root === "/sys/fs/cgroup/pids") return root;
    try {
      if (/\bpids\b/.test(Deno.readTextFileSync(`${root}/cgroup.subtree_control`))) return root;
    } catch {
      // No pids controller delegated here.
    }
  }
  return null;
}

const ROOT = Deno.uid() === 0 ? cgroupRoot() : null;
if (ROOT === null) {
  console.warn(
    "!!! not root with a writable pids cgroup: the finished-sandbox cleanup is not tested here !!!",
  );
}

/** A pid no process has now: one of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

/** A `sleep` moved into `folder` (made here): what a sandbox left, or a live sandbox. */
function sleeperIn(folder: string): Deno.ChildProcess {
  Deno.mkdirSync(folder);
  const child = new Deno.Command("sleep", { args: ["300"], stdout: "null", stderr: "null" })
    .spawn();
  Deno.writeTextFileSync(`${folder}/cgroup.procs`, `${child.pid}\n`);
  return child;
}

/** `promise`, or a failure saying `what` once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(new Error(what)), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const STEPS: [string, (limit: string) => string[]][] = [
  ["one bwrap per command", (limit) => ["-c", ROOT_PIDS_STEP, "skiff-limit", limit, "true"]],
  [
    "a session sandbox",
    (limit) => ["-c", POOL_START_STEP, "skiff-pool-start", limit, "/bin/sh", "/bin/sh", "true"],
  ],
];

for (const [name, argsFor] of STEPS) {
  Deno.test({
    name: `cgroup step (${name}): a finished sandbox's folder goes, with what it still held`,
    ignore: ROOT === null,
  }, async () => {
    const root = ROOT!;
    const leftPid = await deadPid();
    const emptyPid = await deadPid();
    const left = `${root}/skiff-pool-${leftPid}`;
    const empty = `${root}/skiff-${emptyPid}`;
    Deno.mkdirSync(empty);
    const orphan = sleeperIn(left);
    // A sandbox still running: its folder is named after a live pid (the sleep's own).
    const liveFolder = `${root}/skiff-pool-live-${Deno.pid}`;
    let live: Deno.ChildProcess | undefined;
    const ran: number[] = [];
    try {
      live = sleeperIn(liveFolder);
      Deno.renameSync(liveFolder, `${root}/skiff-pool-${live.pid}`);
      const step = async () => {
        const child = new Deno.Command("sh", { args: argsFor("64"), stderr: "piped" }).spawn();
        ran.push(child.pid);
        const output = await child.output();
        assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
      };
      await step();
      const status = await within(orphan.status, 5000, "what the finished sandbox left still runs");
      assertEquals(status.signal, "SIGKILL", "what the finished sandbox left was not ended");
      assert(!existsSync(empty), `${empty} was not removed`);
      // The folder of the ended process goes at once, or at the next start if it was not reaped yet.
      if (existsSync(left)) await step();
      assert(!existsSync(left), `${left} was not removed`);
      // The live sandbox keeps its process and its folder.
      assert(
        existsSync(`${root}/skiff-pool-${live.pid}`),
        "a running sandbox's folder was removed",
      );
      const procs = Deno.readTextFileSync(`${root}/skiff-pool-${live.pid}/cgroup.procs`);
      assertEquals(procs.trim(), String(live.pid));
    } finally {
      for (const child of [orphan, live]) {
        try {
          child?.kill("SIGKILL");
        } catch {
          // Ended already.
        }
        await child?.status;
      }
      // The steps' own folders (their pid is gone now), the live one, and any left by a failure.
      for (const pid of [...ran, live?.pid, leftPid, emptyPid]) {
        for (const folder of [`${root}/skiff-${pid}`, `${root}/skiff-pool-${pid}`]) {
          try {
            Deno.removeSync(folder);
          } catch {
            // Not there.
          }
        }
      }
      try {
        Deno.removeSync(liveFolder);
      } catch {
        // Renamed.
      }
    }
  });
}
