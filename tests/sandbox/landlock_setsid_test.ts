/**
 * Under Landlock there is no pid namespace, so killing a command's process
 * group misses a child that called setsid. Each command's processes carry a
 * marker in their environment, and the lifeline watchdog (outside the group)
 * kills every process carrying it once the command has ended, was stopped,
 * or skiff went away. Skipped loudly where Landlock does not work.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import { landlockLauncher } from "../../src/sandbox/landlock/launcher.ts";
import { startGroup } from "../../src/tools/process/_process_group.ts";
import { liveProcesses } from "../support/processes.ts";

const found = await probeSandboxes();
const ABI = found.landlock ?? null;
if (ABI === null) {
  console.warn(
    `\n!!! LANDLOCK SETSID: Landlock does not work here (${found.reasons?.landlock}); ` +
      "these tests are SKIPPED. !!!\n",
  );
}

/** A `sleep` argument no other process on the machine has, to find it in /proc. */
function uniqueSeconds(): string {
  return `100.${Math.floor(Math.random() * 1e9)}`;
}

function sleepersOf(seconds: string): number[] {
  return liveProcesses((args) => args[0]?.endsWith("sleep") && args[1] === seconds);
}

/** Waits (up to 5 s) until no such sleeper is left; returns the survivors. */
async function survivorsAfterWait(seconds: string): Promise<number[]> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (sleepersOf(seconds).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const left = sleepersOf(seconds);
  for (const pid of left) Deno.kill(pid, "SIGKILL"); // leave the machine clean
  return left;
}

async function withWorkspace(work: (ws: string) => Promise<void>): Promise<void> {
  const ws = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-setsid-" });
  try {
    await work(ws);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
}

/**
 * Runs `start` (which leaves a sleeper behind), and lets the command end
 * only once that sleeper has left the group: so skiff's kill of what is
 * left in the group cannot reach it before its setsid.
 */
async function runUntilSleeperDetached(ws: string, start: string, seconds: string) {
  const group = await startGroup({
    launcher: launcherFor(ws),
    command: `${start} > /dev/null 2>&1 & while [ ! -e go ]; do sleep 0.02; done; echo done`,
    cwd: ws,
    onOutput: () => {},
  });
  const deadline = Date.now() + 10_000;
  while (!detached(sleepersOf(seconds)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert(detached(sleepersOf(seconds)), "the sleeper called setsid");
  Deno.writeTextFileSync(`${ws}/go`, "");
  return await group.done;
}

/** True when one sleeper runs and leads its own session. */
function detached(pids: number[]): boolean {
  if (pids.length !== 1) return false;
  const fields = Deno.readTextFileSync(`/proc/${pids[0]}/stat`).split(") ")[1].split(" ");
  return Number(fields[3]) === pids[0]; // the session id
}

function launcherFor(ws: string) {
  return landlockLauncher(
    { mode: "workspace-write", workspace: ws, addDirs: [], network: false, envNames: [] },
    { abi: ABI ?? 1 },
  );
}

Deno.test({
  name: "landlock: a setsid child does not survive the command being stopped (abort, timeout)",
  ignore: ABI === null,
  async fn() {
    await withWorkspace(async (ws) => {
      const seconds = uniqueSeconds();
      let output = "";
      const group = await startGroup({
        launcher: launcherFor(ws),
        command: `setsid sleep ${seconds} & echo started; sleep 100`,
        cwd: ws,
        onOutput: (text) => output += text,
        killGraceMs: 200,
      });
      const deadline = Date.now() + 10_000;
      while (!(output.includes("started") && sleepersOf(seconds).length) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assertStringIncludes(output, "started");
      assertEquals(sleepersOf(seconds).length, 1, "the setsid sleeper runs before the stop");
      await group.stop();
      assertEquals(await survivorsAfterWait(seconds), [], "the setsid sleeper was killed");
    });
  },
});

Deno.test({
  name: "landlock: a setsid child left behind by a command that ended is killed too",
  ignore: ABI === null,
  async fn() {
    await withWorkspace(async (ws) => {
      const seconds = uniqueSeconds();
      const exit = await runUntilSleeperDetached(ws, `setsid sleep ${seconds}`, seconds);
      assertEquals(exit.code, 0);
      assertEquals(await survivorsAfterWait(seconds), [], "the setsid sleeper was killed");
    });
  },
});

Deno.test({
  name: "landlock: a child that clears its environment before setsid is the documented gap",
  ignore: ABI === null,
  async fn() {
    await withWorkspace(async (ws) => {
      const seconds = uniqueSeconds();
      await runUntilSleeperDetached(ws, `env -i setsid sleep ${seconds}`, seconds);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const left = sleepersOf(seconds);
      for (const pid of left) Deno.kill(pid, "SIGKILL");
      // docs/security.md says so; if this ever changes, the sentence there must change too.
      assert(left.length === 1, `expected the known gap (one survivor), found ${left.length}`);
    });
  },
});

Deno.test({
  name: "landlock: a command that leaves nothing behind is not reported as leaving strays",
  ignore: ABI === null,
  async fn() {
    await withWorkspace(async (ws) => {
      let output = "";
      const group = await startGroup({
        launcher: launcherFor(ws),
        command: "echo hi",
        cwd: ws,
        onOutput: (text) => output += text,
      });
      // The watchdog has left the command's group: it is not a stray the group kill must stop.
      assertEquals(await group.done, { code: 0, signal: null, strayStopped: false });
      assertEquals(output, "hi\n");
    });
  },
});

Deno.test({
  name: "landlock: a command that ends at once never leaves the watchdog in its group (40 runs)",
  ignore: ABI === null,
  async fn() {
    await withWorkspace(async (ws) => {
      // The watchdog's setsid used to race the command's end: about 1 run in 15–20 found it
      // still in the group, took it for a stray and killed it before its work.
      const reported: number[] = [];
      for (let run = 0; run < 40; run++) {
        const group = await startGroup({
          launcher: launcherFor(ws),
          command: "echo hi",
          cwd: ws,
          onOutput: () => {},
        });
        if ((await group.done).strayStopped) reported.push(run);
      }
      assertEquals(reported, [], "runs that took the watchdog for a stray");
    });
  },
});
