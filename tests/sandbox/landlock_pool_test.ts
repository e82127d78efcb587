/**
 * The session-long Landlock holder (src/sandbox/landlock/session.ts and
 * sandbox/landlock/pool_steps.ts), run the way the bash tool runs commands: lease
 * through `guard.before()`, `startGroup`, release once the group is done.
 * Needs a kernel with Landlock; skipped loudly without it.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { landlockAbi } from "../../src/sandbox/landlock/landlock.ts";
import { landlockLauncher } from "../../src/sandbox/landlock/launcher.ts";
import { landlockSessionLauncher } from "../../src/sandbox/landlock/session.ts";
import type { SandboxSettings } from "../../src/sandbox/modes.ts";
import { startGroup } from "../../src/tools/process/_process_group.ts";
import { liveProcesses } from "../support/processes.ts";

const abi = landlockAbi();
if (typeof abi !== "number") {
  console.warn(
    `\n!!! LANDLOCK SESSION: Landlock does not work here (${abi}); every test of the ` +
      "Landlock holder is SKIPPED. !!!\n",
  );
}
const needsLandlock = { ignore: typeof abi !== "number" };

function workspace(): { ws: string; cleanup(): void } {
  const root = Deno.makeTempDirSync({ dir: Deno.cwd(), prefix: ".landlock-pool-test-" });
  const ws = path.join(root, "ws");
  Deno.mkdirSync(ws, { recursive: true });
  return {
    ws: Deno.realPathSync(ws),
    cleanup: () => Deno.removeSync(root, { recursive: true }),
  };
}

function settings(ws: string): SandboxSettings {
  return { mode: "workspace-write", workspace: ws, addDirs: [], network: false, envNames: [] };
}

type Launcher = ReturnType<typeof landlockSessionLauncher>;

function launcherFor(ws: string): Launcher {
  return landlockSessionLauncher(settings(ws), { abi: abi as number, shell: "/bin/bash" });
}

/** One command as the bash tool runs it. */
async function bash(launcher: Launcher, command: string, cwd: string) {
  const after = launcher.guard!.before();
  let output = "";
  const group = await startGroup({ launcher, command, cwd, onOutput: (text) => output += text });
  const exit = await group.done;
  after();
  return { output, code: exit.code, strayStopped: exit.strayStopped };
}

/** Waits until the pool has emptied the last holder's temp folder. */
async function settled(launcher: Launcher) {
  const deadline = Date.now() + 10_000;
  while (!(await launcher.pool.idle()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Live `sleep <marker>` processes (not the shells whose scripts name them). */
function sleeps(marker: string): number[] {
  return liveProcesses((args) => /^(\/bin\/)?sleep$/.test(args[0] ?? "") && args[1] === marker);
}

/** The holder's pid: the process whose command line names its copy of the shell. */
function holders(): number[] {
  return liveProcesses((args) => /skiff-landlock-\d+\.holder$/.test(args[0] ?? ""));
}

Deno.test({
  name: "landlock pool: commands run in one holder, inside the sandbox, with exit codes",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  try {
    const ask = 'tr "\\0" "\\n" < /proc/$PPID/cmdline | head -1; echo "$TMPDIR"; pwd';
    const first = await bash(launcher, ask, ws);
    assertEquals(first.code, 0, first.output);
    const [holder, temp, cwd] = first.output.trim().split("\n");
    assert(/skiff-landlock-\d+\.holder$/.test(holder), `the parent is ${holder}`);
    assertEquals(cwd, ws);
    await settled(launcher);
    const second = await bash(launcher, ask, ws);
    assertEquals(second.output.trim().split("\n").slice(0, 2), [holder, temp]);
    await settled(launcher);
    const outside = await bash(
      launcher,
      `(echo x > ${
        path.dirname(ws)
      }/out.txt) 2>/dev/null || echo blocked; echo in > in.txt; exit 7`,
      ws,
    );
    assertEquals([outside.code, outside.output], [7, "blocked\n"]);
    assertEquals(Deno.readTextFileSync(path.join(ws, "in.txt")), "in\n");
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: nothing a command starts outlives it (backgrounded, setsid, env -i)",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.25`;
  try {
    const left = await bash(
      launcher,
      // The last clears its environment, mark and all: the holder finds it as its own child.
      `sleep ${marker} & setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & ` +
        `setsid env -i /bin/sleep ${marker} & (sleep 0.3; echo late > late.txt) & ` +
        `sleep 0.2; echo started`,
      ws,
    );
    assertEquals([left.output, left.strayStopped], ["started\n", true]);
    assertEquals(sleeps(marker), []);
    await new Promise((resolve) => setTimeout(resolve, 500));
    let late = true;
    try {
      Deno.statSync(path.join(ws, "late.txt"));
    } catch {
      late = false;
    }
    assertEquals(late, false, "a process of the command wrote after it had ended");
    await settled(launcher);
    const clean = await bash(launcher, "(sleep 0.01) & wait; exit 3", ws);
    assertEquals([clean.code, clean.strayStopped], [3, false]);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: the next command starts with an empty temp folder",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  try {
    const made = await bash(
      launcher,
      'echo x > "$TMPDIR/left"; echo y > "$TMPDIR/.hidden"; mkdir -p "$TMPDIR/d/e"; ' +
        'touch "$TMPDIR/d/e/f"; chmod 000 "$TMPDIR/d"; ls -A "$TMPDIR" | wc -l',
      ws,
    );
    assertEquals(made.output.trim(), "3");
    await settled(launcher);
    const next = await bash(launcher, 'ls -A "$TMPDIR" | wc -l', ws);
    assertEquals(next.output.trim(), "0");
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: a command cannot reach into the holder, and its signals do not end it",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  try {
    const attempt = await bash(
      launcher,
      [
        // The command's parent is a fork of the holder; the holder is its parent.
        'h=$(cut -d" " -f4 /proc/$PPID/stat)',
        "for p in $PPID $h; do",
        "  (exec 5<>/proc/$p/mem) 2>/dev/null && echo mem-opened",
        "  cat /proc/$p/environ >/dev/null 2>&1 && echo environ-read",
        "  for fd in 0 1 2; do (exec 6<>/proc/$p/fd/$fd) 2>/dev/null && echo fd-$fd-opened; done",
        "  readlink /proc/$p/fd/0 2>/dev/null && echo fd-read",
        "done",
        "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '",
        // The holder's process group is the command's: these reach it, and it ignores them.
        "for s in INT TERM HUP QUIT USR1 USR2 ALRM; do kill -$s $PPID $h; done",
        "echo done",
      ].join("\n"),
      ws,
    );
    assertEquals(
      attempt.output,
      "CapEff: 0000000000000000\nCapBnd: 0000000000000000\nNoNewPrivs: 1\ndone\n",
    );
    await settled(launcher);
    // `kill 0` (TERM to the whole group) ends the command, never the holder.
    const group = await bash(launcher, "sleep 30 & kill 0; sleep 5; echo survived", ws);
    assertEquals(group.code, 143, group.output);
    await settled(launcher);
    const after = await bash(launcher, "echo alive", ws);
    assertEquals(after.output, "alive\n");
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: stopping a command kills its whole tree; the next gets a new holder",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.5`;
  try {
    await bash(launcher, "true", ws);
    const [holder] = holders().filter((pid) => pid > 0);
    await settled(launcher);
    const after = launcher.guard!.before();
    let output = "";
    const group = await startGroup({
      launcher,
      command: `sleep ${marker} & setsid sleep ${marker} & echo up; sleep ${marker}`,
      cwd: ws,
      onOutput: (text) => output += text,
    });
    await until(() => sleeps(marker).length === 3, `3 sleeps (${output})`);
    await group.stop(500);
    after();
    // Stopped whole at once: no shell outlived its child to report it ("Killed").
    assertEquals(output, "up\n");
    await until(() => sleeps(marker).length === 0, "the sleeps are gone");
    await until(() => !holders().includes(holder), "the stopped holder is gone");
    const again = await bash(launcher, "echo again", ws);
    assertEquals(again.output, "again\n");
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: a holder killed under its command says so (125), and its strays go",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.75`;
  try {
    // `kill -9 0` reaches the holder, which shares the command's process group.
    const killed = await bash(launcher, `setsid sleep ${marker} & sleep 0.2; kill -9 0`, ws);
    assertEquals(killed.code, 125, killed.output);
    assertEquals(killed.output, "skiff: the session's sandbox is gone\n");
    await until(() => sleeps(marker).length === 0, "the stray is gone");
    const next = await bash(launcher, "echo again", ws);
    assertEquals(next.output, "again\n");
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: closing the session, or skiff dying, ends the holder and its command",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.125`;
  try {
    const launcher = launcherFor(ws);
    const after = launcher.guard!.before();
    const group = await startGroup({
      launcher,
      command: `setsid sleep ${marker} & sleep ${marker}`,
      cwd: ws,
      onOutput: () => {},
    });
    await until(() => sleeps(marker).length === 2, "2 sleeps");
    await launcher.close();
    await group.done;
    after();
    await until(() => sleeps(marker).length === 0, "closing ended them");

    // A process that dies with a command running: the holder's helper sees its input end.
    const script = path.join(ws, "..", "dies.ts");
    Deno.writeTextFileSync(
      script,
      `import { landlockSessionLauncher } from ${
        JSON.stringify(new URL("../../src/sandbox/landlock/session.ts", import.meta.url).href)
      };
      import { startGroup } from ${
        JSON.stringify(new URL("../../src/tools/process/_process_group.ts", import.meta.url).href)
      };
      const launcher = landlockSessionLauncher(${JSON.stringify(settings(ws))}, { abi: ${abi} });
      launcher.guard!.before();
      await startGroup({ launcher, command: "setsid sleep ${marker} & sleep ${marker}", cwd: ${
        JSON.stringify(ws)
      }, onOutput: () => {} });
      await new Promise(() => setInterval(() => {}, 1000));`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script],
      stdout: "null",
      stderr: "null",
    }).spawn();
    await until(() => sleeps(marker).length === 2, "2 sleeps in the child");
    child.kill("SIGKILL");
    await child.status;
    await until(() => sleeps(marker).length === 0, "dying ended them");
  } finally {
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: a command's environment is the one an exec step of its own gives it",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const getEnv = (name: string) =>
    ({ HOME: "/home/someone", LANG: "C.UTF-8", PATH: "/usr/bin:/bin" } as Record<string, string>)[
      name
    ];
  const options = { abi: abi as number, shell: "/bin/bash", getEnv };
  const launcher = landlockSessionLauncher(settings(ws), options);
  const own = landlockLauncher(settings(ws), options);
  // Each start has its own mark and temp folder: the names must match, not the values.
  const masked = (text: string) => text.replace(/^(SKIFF_COMMAND_MARK|TMPDIR)=.*$/gm, "$1=…");
  try {
    const show = 'env | sort; echo "SHLVL=$SHLVL"; umask';
    const pooled = await bash(launcher, show, ws);
    let alone = "";
    const running = await startGroup({
      launcher: own,
      command: show,
      cwd: ws,
      onOutput: (text) => alone += text,
    });
    await running.done;
    assert(pooled.output.includes("SKIFF_COMMAND_MARK="), pooled.output);
    assertEquals(masked(pooled.output), masked(alone));
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "landlock pool: output arrives whole, NUL bytes and all; a script arrives as written",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  try {
    const many = await bash(launcher, "seq 1 200000; printf 'a\\0b\\001<>end'", ws);
    const expected = Array.from({ length: 200000 }, (_, index) => `${index + 1}\n`).join("") +
      "a\0b\x01<>end";
    assertEquals(many.code, 0);
    assert(many.output === expected, "the output differs from what the command wrote");
    await settled(launcher);
    const body = `.\n|x\n\n  indented \\\n${"x".repeat(100_000)}`;
    const script = await bash(launcher, `cat <<'END'\n${body}\nEND`, ws);
    assertEquals(script.code, 0);
    assert(
      script.output === `${body}\n`,
      `the script arrived changed: ${script.output.slice(0, 80)}`,
    );
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name:
    "landlock pool: where the holder cannot start (a noexec temp root), commands still run sandboxed",
  // Mounting a noexec tmpfs needs root (CI runs as root).
  ignore: typeof abi !== "number" || Deno.uid() !== 0,
}, async () => {
  const { ws, cleanup } = workspace();
  const tempRoot = Deno.makeTempDirSync({ prefix: "skiff-noexec-" });
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "noexec,size=16m", "tmpfs", tempRoot],
  }).output();
  assert(
    mount.success,
    `could not mount a noexec tmpfs: ${new TextDecoder().decode(mount.stderr)}`,
  );
  const launcher = landlockSessionLauncher(settings(ws), {
    abi: abi as number,
    shell: "/bin/bash",
    tempRoot,
  });
  try {
    const ran = await bash(
      launcher,
      `echo ran; (echo x > ${path.dirname(ws)}/out.txt) 2>/dev/null || echo blocked`,
      ws,
    );
    assertEquals([ran.code, ran.output], [0, "ran\nblocked\n"]);
    const availability = launcher.pool.availability;
    assert(availability?.usable === false, "the holder started from a noexec folder");
    assert(availability.reason.includes("errno 13"), availability.reason);
    assertEquals(launcher.pool.size, 0);
  } finally {
    await launcher.close();
    await new Deno.Command("umount", { args: [tempRoot] }).output();
    Deno.removeSync(tempRoot, { recursive: true });
    cleanup();
  }
});

/** The standard signals (1–31) `mask` names, a hex SigIgn or SigBlk of /proc/<pid>/status. */
function standardSignals(status: string, field: string): number[] {
  const mask = BigInt(`0x${new RegExp(`^${field}:\\s*([0-9a-f]+)$`, "m").exec(status)![1]}`);
  return Array.from({ length: 31 }, (_, bit) => bit + 1).filter((signal) =>
    (mask >> BigInt(signal - 1)) & 1n
  );
}

Deno.test({
  name: "landlock pool: a command gets the signals the holder ignores back, as unsandboxed",
  ...needsLandlock,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = launcherFor(ws);
  try {
    const signals = "grep -E '^Sig(Blk|Ign)' /proc/self/status";
    const inside = await bash(launcher, signals, ws);
    const host = new TextDecoder().decode(
      (await new Deno.Command("/bin/bash", { args: ["-c", signals], stdin: "null" }).output())
        .stdout,
    );
    // glibc's own real-time signals (32, 33) are no shell's to set; the standard ones must match.
    for (const field of ["SigIgn", "SigBlk"]) {
      assertEquals(standardSignals(inside.output, field), standardSignals(host, field), field);
    }
    await settled(launcher);
    const interrupted = await bash(launcher, "kill -INT $$; echo survived", ws);
    assertEquals([interrupted.code, interrupted.output], [130, ""]);
    await settled(launcher);
    // SIGPIPE is the default again (the exec step's runtime ignores it): `yes` ends quietly.
    const piped = await bash(launcher, "yes | head -1", ws);
    assertEquals([piped.code, piped.output], [0, "y\n"]);
    // The same through an exec step of the command's own.
    let alone = "";
    const own = await startGroup({
      launcher: landlockLauncher(settings(ws), { abi: abi as number, shell: "/bin/bash" }),
      command: `${signals}; yes | head -1`,
      cwd: ws,
      onOutput: (text) => alone += text,
    });
    assertEquals((await own.done).code, 0, alone);
    assertEquals(standardSignals(alone, "SigIgn"), standardSignals(host, "SigIgn"), alone);
    assert(alone.endsWith("\ny\n"), alone);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test("landlock holder: a multi-call binary (busybox) as its shell gives way to the command shell", async () => {
  const { holderProgram } = await import("../../src/sandbox/landlock/exec.ts");
  const bin = Deno.makeTempDirSync({ prefix: "skiff-holder-shell-" });
  try {
    Deno.writeTextFileSync(path.join(bin, "busybox"), "", { mode: 0o755 });
    Deno.symlinkSync(path.join(bin, "busybox"), path.join(bin, "sh"));
    assertEquals(holderProgram(path.join(bin, "sh"), "/bin/bash"), "/bin/bash");
    assertEquals(holderProgram(path.join(bin, "busybox"), "/bin/bash"), "/bin/bash");
    assertEquals(holderProgram("/bin/sh", "/bin/bash"), "/bin/sh", "this machine's sh");
    // No fallback named: the program as it is.
    assertEquals(holderProgram(path.join(bin, "sh")), path.join(bin, "sh"));
  } finally {
    Deno.removeSync(bin, { recursive: true });
  }
});
