/**
 * Model-driven attempts on processes outside the command under
 * `skiff run --sandbox-backend landlock`, where there is no pid namespace:
 * a command sees skiff's pid and the user's other processes. Each attempt
 * has its control, the same command with `--sandbox full-access`, showing
 * it does harm when nothing contains it. And the command guard's revert
 * survives skiff's death (SIGKILL mid-command): the watcher replays its
 * journal at once, or the next start does (src/sandbox/guard/journal.ts).
 * Skipped loudly where Landlock does not work.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff, spawnSkiff } from "../support/cli.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import {
  type AttackSandbox,
  bash,
  everythingSent,
  exists,
  lastToolResults,
  withAttack,
} from "./e2e_support.ts";

const found = await probeSandboxes();
if (!found.landlock) {
  console.warn(
    `\n!!! LANDLOCK PROCESS E2E: Landlock does not work here (${found.reasons?.landlock}); SKIPPED. !!!\n`,
  );
}
const needsLandlock = { ignore: !found.landlock };
const abi = found.landlock ?? 0;
if (found.landlock && abi < 6) {
  console.warn(
    `\n!!! LANDLOCK PROCESS E2E: ABI ${abi} has no signal scope; the kill test SKIPPED. !!!\n`,
  );
}

const LANDLOCK = ["run", "--json", "--yes", "--sandbox-backend", "landlock", "go"];
const UNCONTAINED = ["run", "--json", "--yes", "--sandbox", "full-access", "go"];

/** Sets `s` to skiff's pid: the first ancestor named deno (the exec step is named otherwise). */
const FIND_SKIFF = 's=$PPID; while [ "$(cat /proc/$s/comm)" != deno ] && [ "$s" -gt 1 ]; do ' +
  "s=$(cut -d' ' -f4 /proc/$s/stat); done; ";
const PLANT_HOOK = "printf '#!/bin/sh\\ntouch ../outside/hook-ran\\n' > .git/hooks/pre-commit; ";
const HOOK = (sandbox: AttackSandbox) => path.join(sandbox.workspace, ".git/hooks/pre-commit");

/** A run ended by a signal (Deno reports 128 + the signal) rather than by skiff itself. */
const killed = (code: number) => code > 128;

Deno.test({
  name: "landlock e2e: prlimit on skiff fails, skiff lives and reverts the planted hook " +
    "(control: full-access, skiff dies)",
  ...needsLandlock,
}, async () => {
  const attack = FIND_SKIFF + PLANT_HOOK +
    "prlimit --pid $s --cpu=1:1 --as=100000000 --fsize=0 && echo LIMITED; sleep 2; echo survived";
  const script = [{ toolCalls: [bash(attack)] }, { text: "done" }];
  await withAttack(script, async (sandbox, mock) => {
    const result = await runSkiff(LANDLOCK, sandbox);
    assert(result.code === 0 || result.code === 3, `skiff did not finish: ${result.stderr}`);
    const seen = lastToolResults(mock)[0]?.content ?? "";
    assert(seen.includes("Operation not permitted"), `prlimit was not refused: ${seen}`);
    assert(!seen.includes("LIMITED") && seen.includes("survived"), seen);
    assert(!(await exists(HOOK(sandbox))), "the planted hook stayed");
  });
  await withAttack(script, async (sandbox, mock) => {
    const result = await runSkiff(UNCONTAINED, sandbox);
    assert(killed(result.code), `control: skiff was not killed (exit ${result.code})`);
    assertEquals(lastToolResults(mock).length, 0, "control: the run went on");
    assert(await exists(HOOK(sandbox)), "control: the hook was not planted");
  });
});

/** `prlimit --nofile=7:7` on another process of the user: its limit afterwards. */
async function limitOfBystander(args: string[]): Promise<string> {
  const bystander = new Deno.Command("sleep", { args: ["60"], stdout: "null" }).spawn();
  try {
    const attack = `prlimit --pid ${bystander.pid} --nofile=7:7 && echo LIMITED`;
    let limits = "";
    await withAttack([{ toolCalls: [bash(attack)] }, { text: "done" }], async (sandbox) => {
      await runSkiff(args, sandbox);
      limits = Deno.readTextFileSync(`/proc/${bystander.pid}/limits`);
    });
    return limits.split("\n").find((line) => line.startsWith("Max open files")) ?? "";
  } finally {
    bystander.kill("SIGKILL");
    await bystander.status;
  }
}

Deno.test({
  name:
    "landlock e2e: prlimit on another process of the user fails (control: full-access limits it)",
  ...needsLandlock,
}, async () => {
  const contained = await limitOfBystander(LANDLOCK);
  assert(!/\s7\s+7\s/.test(contained), `the bystander was limited: ${contained}`);
  const uncontained = await limitOfBystander(UNCONTAINED);
  assert(/\s7\s+7\s/.test(uncontained), `control: the bystander kept its limit: ${uncontained}`);
});

Deno.test({
  name: "landlock e2e: kill -9 of skiff is refused by the signal scope (control: full-access dies)",
  ignore: !found.landlock || abi < 6,
}, async () => {
  const attack = FIND_SKIFF + "kill -9 $s && echo KILLED; sleep 1; echo survived";
  const script = [{ toolCalls: [bash(attack)] }, { text: "done" }];
  await withAttack(script, async (_sandbox, mock) => {
    const result = await runSkiff(LANDLOCK, _sandbox);
    assertEquals(result.code, 0, result.stderr);
    const seen = lastToolResults(mock)[0]?.content ?? "";
    assert(seen.includes("Operation not permitted") && !seen.includes("KILLED"), seen);
  });
  await withAttack(script, async (sandbox) => {
    const result = await runSkiff(UNCONTAINED, sandbox);
    assert(killed(result.code), `control: skiff was not killed (exit ${result.code})`);
  });
});

/** keyctl, which the keyring test needs: it fails loudly without. */
function keyctl(...args: string[]): string {
  let output: Deno.CommandOutput;
  try {
    output = new Deno.Command("keyctl", { args, stdout: "piped", stderr: "piped" }).outputSync();
  } catch (error) {
    throw new Error(
      `keyctl is needed for the keyring test (apt-get install -y keyutils): ${error}`,
    );
  }
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout).trim();
}

Deno.test({
  name: "landlock e2e: the user's @u keyring is out of reach (control: full-access reads it)",
  ...needsLandlock,
}, async () => {
  const secret = `KEYRING-SECRET-${crypto.randomUUID()}`;
  const name = `skiff-e2e-${crypto.randomUUID()}`;
  const id = keyctl("add", "user", name, secret, "@u");
  try {
    const attack = `keyctl print $(keyctl search @u user ${name}); keyctl show @u`;
    const script = [{ toolCalls: [bash(attack)] }, { text: "done" }];
    await withAttack(script, async (sandbox, mock) => {
      const result = await runSkiff(LANDLOCK, sandbox);
      assertEquals(result.code, 0, result.stderr);
      const seen = lastToolResults(mock)[0]?.content ?? "";
      assert(seen.includes("Operation not permitted"), seen);
      assert(!everythingSent(mock).includes(secret), "the keyring's secret reached the model");
    });
    await withAttack(script, async (sandbox, mock) => {
      await runSkiff(UNCONTAINED, sandbox);
      assert(everythingSent(mock).includes(secret), "control: the keyring could not be read");
    });
  } finally {
    keyctl("unlink", id, "@u");
  }
});

/** The pids of processes whose command line holds every one of `parts`. */
function processesWith(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (parts.every((part) => line.includes(part))) pids.push(Number(entry.name));
    } catch { /* gone */ }
  }
  return pids;
}

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return await check();
}

/** Runs skiff with a command that plants the hook and sleeps; returns once it is planted. */
async function plantAndWait(sandbox: AttackSandbox): Promise<Deno.ChildProcess> {
  const child = spawnSkiff(LANDLOCK, sandbox);
  const planted = await until(() => exists(HOOK(sandbox)), 60_000);
  assert(planted, "the command never planted the hook");
  return child;
}

async function sigkill(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await child.output();
}

Deno.test({
  name: "landlock e2e: SIGKILL of skiff mid-command; the watcher reverts the planted hook",
  ...needsLandlock,
}, async () => {
  const script = [{ toolCalls: [bash(PLANT_HOOK + "echo planted; sleep 30")] }, { text: "done" }];
  await withAttack(script, async (sandbox) => {
    await sigkill(await plantAndWait(sandbox));
    const reverted = await until(async () => !(await exists(HOOK(sandbox))), 15_000);
    assert(reverted, "the planted hook stayed after skiff was killed");
  });
});

Deno.test({
  name:
    "landlock e2e: SIGKILL of skiff and its watcher; the next start reverts the hook and says so",
  ...needsLandlock,
}, async () => {
  const script = [
    { toolCalls: [bash(PLANT_HOOK + "echo planted; sleep 30")] },
    { text: "done" },
  ];
  await withAttack(script, async (sandbox) => {
    const child = await plantAndWait(sandbox);
    // The watcher starts beside the command: on a loaded machine it can be up a moment after the
    // command's first output.
    await until(() => processesWith("skiff-guard-watch", sandbox.dataDir).length > 0, 10_000);
    const watchers = processesWith("skiff-guard-watch", sandbox.dataDir);
    assertEquals(watchers.length, 1, "no watcher of this session's journal");
    Deno.kill(watchers[0], "SIGKILL");
    await sigkill(child);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Control: with skiff and its watcher gone, the hook stays for the user's next commit.
    assert(await exists(HOOK(sandbox)), "control: the hook went without any revert");
    const next = await runSkiff(LANDLOCK, sandbox);
    assert(!(await exists(HOOK(sandbox))), "the next start did not revert the hook");
    const said = next.stdout + next.stderr;
    assert(said.includes("pre-commit") && said.includes("git status"), `not said: ${said}`);
  });
});
