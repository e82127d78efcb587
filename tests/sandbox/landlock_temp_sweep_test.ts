/**
 * The Landlock exec step's sweep of temp folders (src/sandbox/landlock/exec.ts):
 * a start removes `skiff-landlock-<pid>` folders (and holder copies) whose
 * process is gone, and never one whose process lives. It once asked
 * /proc, which Deno refuses to the step (it has no `--allow-all`), and took
 * the refusal for "gone": a second skiff session removed the temp folder of
 * every live one, in the middle of its commands.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { exists } from "../support/files.ts";
import { landlockAbi, withSyscalls } from "../../src/sandbox/landlock/landlock.ts";
import { processGone, sweepTempFolders } from "../../src/sandbox/landlock/exec.ts";
import { landlockLauncher } from "../../src/sandbox/landlock/launcher.ts";
import { landlockSessionLauncher } from "../../src/sandbox/landlock/session.ts";
import type { SandboxSettings } from "../../src/sandbox/modes.ts";
import { startGroup } from "../../src/tools/process/_process_group.ts";

const abi = landlockAbi();
if (typeof abi !== "number") {
  console.warn(
    `\n!!! LANDLOCK TEMP SWEEP: Landlock does not work here (${abi}); the end-to-end case is ` +
      "SKIPPED. !!!\n",
  );
}

/** The pid of a process that has ended and been reaped. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

function gone(pid: number): boolean {
  const answer = withSyscalls((call, numbers) => processGone(pid, call, numbers));
  if (typeof answer === "object") throw new Error(answer.unavailable);
  return answer;
}

Deno.test("temp sweep: the kernel says which process is gone; a live one, this one and pid 1 are not", async () => {
  if (Deno.build.os !== "linux") return console.warn("!!! SKIPPED: Linux only !!!");
  assertEquals(gone(Deno.pid), false, "this process");
  assertEquals(gone(1), false, "pid 1 (signalling it may be refused: still not gone)");
  const sleeper = new Deno.Command("sleep", { args: ["5"] }).spawn();
  try {
    assertEquals(gone(sleeper.pid), false, "a live child");
  } finally {
    sleeper.kill();
    await sleeper.status;
  }
  assertEquals(gone(await deadPid()), true, "a reaped child");
  assertEquals(gone(0), false, "0 is no process id");
});

Deno.test("temp sweep: only folders and copies of processes told gone go; this process's and others stay", () => {
  const root = Deno.makeTempDirSync({ prefix: "skiff-sweep-test-" });
  try {
    for (
      const name of ["skiff-landlock-111", "skiff-landlock-222", "skiff-landlock-333", "other"]
    ) {
      Deno.mkdirSync(path.join(root, name));
    }
    Deno.writeTextFileSync(path.join(root, "skiff-landlock-222.holder"), "");
    Deno.writeTextFileSync(path.join(root, "skiff-landlock-333.holder"), "");
    const removed = sweepTempFolders(root, (pid) => pid === 222 || pid === 333, 333);
    assertEquals(removed.sort(), ["skiff-landlock-222", "skiff-landlock-222.holder"]);
    assertEquals(
      [...Deno.readDirSync(root)].map((entry) => entry.name).sort(),
      ["other", "skiff-landlock-111", "skiff-landlock-333", "skiff-landlock-333.holder"],
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test({
  name:
    "e2e temp sweep: another session's start leaves a live holder's temp folder alone, and sweeps a dead one's",
  ignore: typeof abi !== "number",
}, async () => {
  const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-sweep-e2e-" }));
  const ws = path.join(base, "ws");
  const tempRoot = path.join(base, "tmp");
  Deno.mkdirSync(ws);
  Deno.mkdirSync(tempRoot);
  const settings: SandboxSettings = {
    mode: "workspace-write",
    workspace: ws,
    addDirs: [],
    network: false,
    envNames: [],
  };
  const options = { abi: abi as number, shell: "/bin/bash", tempRoot };
  const session = landlockSessionLauncher(settings, options);
  try {
    // Left by a process that has ended: the next start removes it.
    const dead = path.join(tempRoot, `skiff-landlock-${await deadPid()}`);
    Deno.mkdirSync(dead);
    const after = session.guard!.before();
    let output = "";
    const live = await startGroup({
      launcher: session,
      command: 'echo "in $TMPDIR"; sleep 1.5; ls -d "$TMPDIR" >/dev/null && echo kept',
      cwd: ws,
      onOutput: (text) => output += text,
    });
    for (let waited = 0; !output.includes("in ") && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const folder = /in (\S+)/.exec(output)?.[1];
    assert(folder?.startsWith(`${tempRoot}/skiff-landlock-`), output);

    // Control: the step the second session starts cannot read /proc/<pid>, which the old
    // sweep asked, so every folder looked gone to it.
    const probe = path.join(base, "probe.ts");
    Deno.writeTextFileSync(
      probe,
      `try { Deno.statSync(${JSON.stringify(`/proc/${Deno.pid}`)}); console.log("read"); } ` +
        `catch (error) { console.log(error.name); }`,
    );
    const refused = new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-config", "--allow-read", "--allow-env", "--allow-ffi", probe],
      stdout: "piped",
    }).outputSync();
    assertEquals(new TextDecoder().decode(refused.stdout).trim(), "NotCapable");

    // Another session's command starts through its own exec step, which sweeps the temp root.
    const other = await landlockLauncher(settings, options).prepare("true", ws);
    const started = await new Deno.Command(other.argv[0], {
      args: other.argv.slice(1),
      env: other.env,
      clearEnv: true,
      cwd: ws,
    }).output();
    assertEquals(started.code, 0, new TextDecoder().decode(started.stderr));
    assert(!exists(dead), "the folder of a process that is gone was left");
    assert(exists(folder!), "the live session's temp folder was removed");

    const exit = await live.done;
    after();
    assertEquals(exit.code, 0, output);
    assert(output.trimEnd().endsWith("kept"), output);
  } finally {
    await session.close();
    Deno.removeSync(base, { recursive: true });
  }
});
