/**
 * Signals to a command's process group where `Deno.kill` is refused (the
 * engine's Worker): one helper shell per thread carries them
 * (src/tools/process/_group_signals.ts).
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { groupAliveBySh, signalGroupBySh } from "../../../src/tools/process/_group_signals.ts";
import { commandShell, installedBashPaths, SETSID_PATHS } from "../../../src/sandbox/shell.ts";
import type { GroupJob, GroupReply } from "./fixtures/group_worker.ts";
import { processesHolding } from "../../support/processes.ts";

Deno.test({
  name: "group signals: the helper reaches a live group, and says when there is none",
  ignore: Deno.build.os === "windows",
}, async () => {
  const child = new Deno.Command("sleep", { args: ["30"], detached: true, stdout: "null" }).spawn();
  try {
    assertEquals(await signalGroupBySh(child.pid, "SIGCONT"), true);
    assertEquals(await signalGroupBySh(child.pid, "SIGKILL"), true);
    assertEquals((await child.status).signal, "SIGKILL");
    assertEquals(await signalGroupBySh(child.pid, "SIGCONT"), false);
    // Nothing but a group number and a signal's name reaches the shell.
    assertEquals(await signalGroupBySh(1, "SIGCONT"), false);
    assertEquals(await signalGroupBySh(-child.pid, "SIGCONT"), false);
    assertEquals(await signalGroupBySh(child.pid, "SIGCONT; true" as Deno.Signal), false);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Gone.
    }
  }
});

Deno.test({
  name: "group signals: a group whose only member is stopped is alive, and resumed",
  ignore: Deno.build.os === "windows",
}, async () => {
  const child = new Deno.Command("sleep", { args: ["30"], detached: true, stdout: "null" }).spawn();
  try {
    Deno.kill(child.pid, "SIGSTOP");
    assertEquals(await groupAliveBySh(child.pid), true);
    const state = Deno.readTextFileSync(`/proc/${child.pid}/stat`).split(") ")[1][0];
    assert(state !== "T", "the stopped member was not resumed");
    child.kill("SIGKILL");
    await child.status;
    assertEquals(await groupAliveBySh(child.pid), false);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Gone.
    }
  }
});

Deno.test("group signals: an idle helper does not keep its process running", async () => {
  const script = `
    import { signalGroupBySh } from ${
    JSON.stringify(
      new URL("../../../src/tools/process/_group_signals.ts", import.meta.url).href,
    )
  };
    const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
    console.log(await signalGroupBySh(child.pid, "SIGKILL"));
    await child.status;
  `;
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  assertEquals(new TextDecoder().decode(output.stdout), "true\n");
  assert(output.success, new TextDecoder().decode(output.stderr));
  assert(performance.now() - started < 15_000, "the process waited for its helper");
});

Deno.test({
  name: "group signals: in a Worker that may not call Deno.kill, strays are found and stopped",
  ignore: Deno.build.os === "windows",
}, async () => {
  const cwd = Deno.makeTempDirSync({ prefix: "skiff-group-" });
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.75`;
  const worker = new Worker(new URL("./fixtures/group_worker.ts", import.meta.url), {
    type: "module",
    deno: {
      permissions: {
        read: false,
        write: false,
        net: false,
        env: false,
        // As the engine's Worker: the shell and `setsid` by name, no `Deno.kill`.
        run: ["sh", ...installedBashPaths(), ...SETSID_PATHS],
        ffi: false,
        sys: false,
        import: false,
      },
    },
  });
  try {
    const reply = await new Promise<GroupReply>((resolve, reject) => {
      worker.onmessage = (message) => resolve(message.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
      worker.postMessage(
        {
          commands: [
            `sleep ${marker} >/dev/null 2>&1 & echo left`,
            "echo clean; exit 4",
            // Its shell leads a session of its own (the sixth field of stat), with no terminal.
            'read -r s < /proc/$$/stat; set -- ${s##*) }; [ "$4" = $$ ] && [ "$5" = 0 ] && echo leader',
          ],
          cwd,
          shell: commandShell().program,
        } satisfies GroupJob,
      );
    });
    assertEquals(reply.killRefused, true, "Deno.kill was allowed: the helper was not used");
    // No fork of the whole process per command where `setsid` is installed (util-linux).
    const setsid = SETSID_PATHS.find((file) => {
      try {
        return Deno.statSync(file).isFile;
      } catch {
        return false;
      }
    });
    if (!setsid) {
      console.warn("!!! no setsid here: commands start through Deno's detached spawn !!!");
    }
    assertEquals(reply.leader, setsid ?? null);
    assertEquals(reply.results, [
      { code: 0, strayStopped: true, output: "left\n" },
      { code: 4, strayStopped: false, output: "clean\n" },
      { code: 0, strayStopped: false, output: "leader\n" },
    ]);
    assertEquals(processesHolding(`sleep ${marker}`), []);
    // The stray died at SIGTERM: its group was over then, though pid 1 may
    // not have reaped it yet (a zombie is no live member), well before the
    // 2 s that SIGKILL waits for.
    assert(reply.ms[0] < 1_500, `stopping the stray took ${reply.ms[0].toFixed(0)} ms`);
  } finally {
    worker.terminate();
    for (const pid of processesHolding(`sleep ${marker}`)) Deno.kill(pid, "SIGKILL");
    Deno.removeSync(cwd, { recursive: true });
  }
});
