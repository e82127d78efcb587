/**
 * The session-long sandbox (src/sandbox/pool/pool.ts), run the way the bash
 * tool runs commands: lease through `guard.before()`, `startGroup`, release
 * once the group is done. Needs bubblewrap and a writable pids cgroup (skiff
 * as root, as in CI); skipped loudly without them.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../../support/assert.ts";
import { bwrapLauncher } from "../../../src/sandbox/bwrap/bwrap.ts";
import { bwrapSessionLauncher } from "../../../src/sandbox/bwrap/session.ts";
import { sessionSandboxMissing } from "../../escape/_pooled_runner.ts";
import { CommandGuard } from "../../../src/sandbox/guard/command_guard.ts";
import type { SandboxSettings } from "../../../src/sandbox/modes.ts";
import { startGroup } from "../../../src/tools/process/_process_group.ts";
import { liveProcesses } from "../../support/processes.ts";

// Warns loudly (once) when the session sandbox cannot run here.
const canPool = sessionSandboxMissing === null;
const needsPool = { ignore: !canPool };

function workspace(): { ws: string; cleanup(): void } {
  // Not under /tmp (or another folder the sandbox replaces and empties): a
  // workspace there is kept whole, and these tests list those folders. A
  // checkout under /tmp (a clean clone) puts it in /var/tmp instead.
  const inCleaned = ["/tmp/", "/dev/shm/", "/run/"].some((top) => `${Deno.cwd()}/`.startsWith(top));
  const base = inCleaned ? "/var/tmp" : Deno.cwd();
  const root = Deno.makeTempDirSync({ dir: base, prefix: ".pool-test-" });
  const ws = path.join(root, "ws");
  Deno.mkdirSync(path.join(ws, "sub"), { recursive: true });
  return {
    ws: Deno.realPathSync(ws),
    cleanup: () => Deno.removeSync(root, { recursive: true }),
  };
}

function settings(ws: string, network = false): SandboxSettings {
  return { mode: "workspace-write", workspace: ws, addDirs: [], network, envNames: [] };
}

type Launcher = ReturnType<typeof bwrapSessionLauncher>;

/** One command as the bash tool runs it; returns its output and exit code. */
async function bash(launcher: Launcher, command: string, cwd: string) {
  const after = launcher.guard!.before();
  let output = "";
  const group = await startGroup({ launcher, command, cwd, onOutput: (text) => output += text });
  const exit = await group.done;
  after();
  return { output, code: exit.code };
}

/** Waits until the pool has emptied the last sandbox's temp folders. */
async function settled(launcher: Launcher) {
  const deadline = Date.now() + 10_000;
  while (!(await launcher.pool.idle()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Live host processes whose command line (arguments joined by spaces) starts with `prefix`. */
function hostProcessesWith(prefix: string): number[] {
  return liveProcesses((args) => args.join(" ").startsWith(prefix));
}

Deno.test(
  { name: "bwrap pool: runs commands in one sandbox kept up between them", ...needsPool },
  async () => {
    const { ws, cleanup } = workspace();
    const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
    try {
      const first = await bash(launcher, "echo hi; pwd; cat /proc/1/comm", path.join(ws, "sub"));
      assertEquals(first.code, 0, first.output);
      const [hi, cwd, init] = first.output.trim().split("\n");
      assertEquals([hi, cwd], ["hi", path.join(ws, "sub")]);
      assert(init.startsWith("skiff-holder"), `pid 1 is ${init}, not the pool's holder`);
      await settled(launcher);
      const second = await bash(launcher, "exit 7", ws);
      assertEquals(second.code, 7);
      assertEquals(launcher.pool.size, 1);
    } finally {
      await launcher.close();
      cleanup();
    }
  },
);

Deno.test({
  name: "bwrap pool: a command's environment is the allowlist, LC_ALL as configured or absent",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const show = "env | grep -E '^(LC_ALL|LANG|TMPDIR|OPENAI_API_KEY)=' | sort | tr '\\n' ' '";
  const getEnv = (name: string) =>
    ({ LANG: "C.UTF-8", LC_ALL: "C.UTF-8", OPENAI_API_KEY: "sk-secret" } as Record<string, string>)[
      name
    ];
  const plain = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash", getEnv });
  const withLocale = bwrapSessionLauncher(
    { ...settings(ws), envNames: ["LC_ALL"] },
    { shell: "/bin/bash", getEnv },
  );
  try {
    assertEquals((await bash(plain, show, ws)).output, "LANG=C.UTF-8 TMPDIR=/tmp ");
    assertEquals(
      (await bash(withLocale, show, ws)).output,
      "LANG=C.UTF-8 LC_ALL=C.UTF-8 TMPDIR=/tmp ",
    );
  } finally {
    await plain.close();
    await withLocale.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: commands back to back reuse one sandbox (the next waits for its cleaning)",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const holders = new Set<string>();
    for (let round = 0; round < 5; round++) {
      const { output } = await bash(launcher, "tr '\\0' '\\n' < /proc/1/cmdline | head -1", ws);
      holders.add(output);
    }
    assertEquals(holders.size, 1, [...holders].join(""));
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: emptying /tmp keeps a workspace that is itself a folder of /tmp",
  ...needsPool,
}, async () => {
  // `/tmp/<name>` itself is the bind mount of the workspace here, not a folder above it.
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-pool-ws-" }));
  assertEquals(path.dirname(ws), "/tmp");
  Deno.writeTextFileSync(path.join(ws, "keep.txt"), "mine\n");
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const made = await bash(launcher, "echo made > made.txt; echo junk > /tmp/junk; echo ok", ws);
    assertEquals(made.output, "ok\n");
    await settled(launcher);
    const seen = await bash(launcher, "cat keep.txt made.txt; ls /tmp", ws);
    assertEquals(seen.output, `mine\nmade\n${path.basename(ws)}\n`);
    assertEquals(Deno.readTextFileSync(path.join(ws, "keep.txt")), "mine\n");
    assertEquals(Deno.readTextFileSync(path.join(ws, "made.txt")), "made\n");
  } finally {
    await launcher.close();
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test({
  name: "bwrap pool: a folder a command made unreadable in /tmp is emptied too",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    await bash(launcher, "mkdir -p /tmp/d/e && touch /tmp/d/e/f && chmod 000 /tmp/d/e /tmp/d", ws);
    await settled(launcher);
    const next = await bash(launcher, "ls -A /tmp", ws);
    assertEquals(next.output, "");
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: a backgrounded child and a setsid one do not survive their command",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.25`;
  try {
    const left = await bash(
      launcher,
      `sleep ${marker} & setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & ` +
        `(sleep 0.3; echo late > late.txt) & echo started`,
      ws,
    );
    assertEquals(left.output, "started\n");
    assertEquals(hostProcessesWith(`sleep ${marker}`), []);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The subshell that would have written after the command ended was gone too.
    assertEquals(Deno.statSync(path.join(ws)).isDirectory, true);
    let late = true;
    try {
      Deno.statSync(path.join(ws, "late.txt"));
    } catch {
      late = false;
    }
    assertEquals(late, false, "a process of the command wrote after it had ended");
    await settled(launcher);
    const next = await bash(launcher, "ps -eo comm= | sort | tr '\\n' ' '", ws);
    assertEquals(next.output.includes("sleep"), false, next.output);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: stopping a command (abort, timeout) kills its whole tree",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  const marker = `${Math.floor(Math.random() * 1e6) + 1000}.5`;
  try {
    const after = launcher.guard!.before();
    let output = "";
    const group = await startGroup({
      launcher,
      command: `sleep ${marker} & setsid sleep ${marker} & echo up; sleep ${marker}`,
      cwd: ws,
      onOutput: (text) => output += text,
    });
    const deadline = Date.now() + 10_000;
    while (hostProcessesWith(`sleep ${marker}`).length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(hostProcessesWith(`sleep ${marker}`).length, 3, output);
    await group.stop(500);
    after();
    assertEquals(hostProcessesWith(`sleep ${marker}`), []);
    await settled(launcher);
    const again = await bash(launcher, "echo again", ws);
    assertEquals(again.output, "again\n");
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test(
  { name: "bwrap pool: commands running at once get a sandbox each", ...needsPool },
  async () => {
    const { ws, cleanup } = workspace();
    const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
    try {
      const [one, two] = await Promise.all([
        bash(launcher, "sleep 0.3; ps -eo comm= | grep -c sleep", ws),
        bash(launcher, "sleep 0.3; ps -eo comm= | grep -c sleep", ws),
      ]);
      // Each sees its own sleep only: the other command is in another sandbox.
      assertEquals([one.output, two.output], ["0\n", "0\n"]);
      assertEquals(launcher.pool.size, 2);
    } finally {
      await launcher.close();
      cleanup();
    }
  },
);

Deno.test({
  name:
    "bwrap pool: the next command starts with empty private temp folders and no SysV IPC objects",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    await bash(
      launcher,
      "echo x > /tmp/left; echo y > /tmp/.hidden; echo z > /dev/shm/s; echo r > /run/r; " +
        "ipcmk -M 4096 >/dev/null; ipcmk -Q >/dev/null",
      ws,
    );
    await settled(launcher);
    const next = await bash(
      launcher,
      "ls -A /tmp /dev/shm; ls -A /run | grep -v '^skiff-' || true; " +
        "ipcs -m -q | grep -c '^0x' || true",
      ws,
    );
    assertEquals(next.output, "/dev/shm:\n\n/tmp:\n0\n");
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: a command cannot reach into the holder that outlives it",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const attempt = await bash(
      launcher,
      [
        "cat /proc/1/environ >/dev/null 2>&1 && echo environ-read",
        "cat /proc/1/maps >/dev/null 2>&1 && echo maps-read",
        "(exec 5<>/proc/1/mem) 2>/dev/null && echo mem-opened",
        "(exec 6</proc/1/fd/0) 2>/dev/null && echo fd-opened",
        "(exec 6</proc/1/ns/mnt) 2>/dev/null && echo ns-opened",
        "kill -9 1; kill -STOP 1",
        "unshare -U true 2>/dev/null && echo userns-made",
        "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '",
        "(echo $$ > /sys/fs/cgroup/pids/cgroup.procs) 2>/dev/null && echo left-cgroup",
        "echo done",
      ].join("; "),
      ws,
    );
    assertEquals(
      attempt.output,
      "CapEff: 0000000000000000\nCapBnd: 0000000000000000\nNoNewPrivs: 1\ndone\n",
    );
    await settled(launcher);
    // The holder ignored the signals: the same sandbox still runs commands.
    const after = await bash(launcher, "echo alive", ws);
    assertEquals(after.output, "alive\n");
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: a repository made by one command has read-only hooks in the next",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  // As in a session: the command guard searches the repositories just before each command.
  const guard = new CommandGuard({ roots: [ws] });
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" }, guard);
  try {
    const made = await bash(launcher, "git init -q sub && echo made", ws);
    assertEquals(made.output, "made\n");
    await settled(launcher);
    // A bwrap of its own would bind sub/.git/hooks read-only now; so must the pool.
    const planted = await bash(
      launcher,
      "(printf '#!/bin/sh\\necho evil\\n' > sub/.git/hooks/pre-commit) 2>/dev/null || echo blocked",
      ws,
    );
    assertEquals(planted.output, "blocked\n");
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test(
  { name: "bwrap pool: a command nobody leases runs in a bwrap of its own", ...needsPool },
  async () => {
    const { ws, cleanup } = workspace();
    const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
    try {
      // A check command or an MCP server: no lease, no lifeline from the pool.
      const { argv } = await launcher.prepare("true", ws);
      assert(argv.includes("--unshare-pid") && !argv.includes("--as-pid-1"), argv.join(" "));
      assertEquals(launcher.pool.size, 0);
    } finally {
      await launcher.close();
      cleanup();
    }
  },
);

Deno.test(
  { name: "bwrap pool: closing the session stops its sandboxes", ...needsPool },
  async () => {
    const { ws, cleanup } = workspace();
    const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
    try {
      // This pool's holder, by its own random name.
      const { output } = await bash(launcher, "tr '\\0' '\\n' < /proc/1/cmdline | head -1", ws);
      const holder = output.trim();
      assert(holder.startsWith("/run/skiff-holder-"), output);
      // While it empties the temp folders the holder forks shells that share its command line.
      await settled(launcher);
      assertEquals(hostProcessesWith(holder).length, 1, "the holder was not running");
      await launcher.close();
      // bwrap is gone when close() returns; its holder gets the kernel's
      // parent-death signal a moment later.
      const deadline = Date.now() + 2_000;
      while (hostProcessesWith(holder).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assertEquals(hostProcessesWith(holder), []);
    } finally {
      await launcher.close();
      cleanup();
    }
  },
);

/** One command through `startGroup`, leased, with its whole exit. */
async function group(launcher: Launcher, command: string, cwd: string) {
  const after = launcher.guard!.before();
  let output = "";
  const running = await startGroup({ launcher, command, cwd, onOutput: (text) => output += text });
  const exit = await running.done;
  after();
  return { output, exit };
}

Deno.test({
  name: "bwrap pool: a command's output arrives whole and in order, NUL bytes and all",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    // 1.3 MB, far more than one pipe buffer, then bytes a text frame would trip on; no final newline.
    const { output, exit } = await group(launcher, "seq 1 200000; printf 'a\\0b\\001<>end'", ws);
    const expected = Array.from({ length: 200000 }, (_, index) => `${index + 1}\n`).join("") +
      "a\0b\x01<>end";
    assertEquals(exit.code, 0);
    assertEquals(output.length, expected.length);
    assert(output === expected, "the output differs from what the command wrote");
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: a script reaches the shell as written (a lone '.', '|' lines, 100 KB)",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    // Many pipe buffers long, under the 128 KiB an argument of a program may take.
    const big = "x".repeat(100_000);
    const body = `.\n|x\n\n  indented \\\n${big}`;
    const { output, exit } = await group(launcher, `cat <<'END'\n${body}\nEND`, ws);
    assertEquals(exit.code, 0);
    assert(output === `${body}\n`, `the script arrived changed: ${output.slice(0, 80)}`);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: the holder's pipes are out of a command's reach, and signals do not stop it",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const attempt = await group(
      launcher,
      [
        // The holder's stdin carries the requests, its stdout the statuses, its stderr the output.
        "for fd in 0 1 2; do (exec 6<>/proc/1/fd/$fd) 2>/dev/null && echo fd-$fd-opened; done",
        "readlink /proc/1/fd/0 /proc/1/fd/1 /proc/1/fd/2 2>/dev/null && echo fds-read",
        "for s in INT TERM HUP QUIT USR1 USR2 PIPE ALRM CHLD TSTP TTIN TTOU; do kill -$s 1; done",
        "echo done",
      ].join("; "),
      ws,
    );
    assertEquals([attempt.exit.code, attempt.output], [0, "done\n"]);
    await settled(launcher);
    const next = await group(launcher, "echo alive", ws);
    assertEquals([next.exit.code, next.output], [0, "alive\n"]);
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: a command whose sandbox dies under it says so (125); the next gets a new one",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const first = await group(launcher, "tr '\\0' '\\n' < /proc/1/cmdline | head -1", ws);
    const holder = first.output.trim();
    await settled(launcher);
    const after = launcher.guard!.before();
    let output = "";
    const running = await startGroup({
      launcher,
      command: "echo before; sleep 30",
      cwd: ws,
      onOutput: (text) => output += text,
    });
    const deadline = Date.now() + 10_000;
    while (!output.includes("before") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [pid] = hostProcessesWith(holder);
    assert(pid, "the holder was not found");
    Deno.kill(pid, "SIGKILL");
    const exit = await running.done;
    after();
    assertEquals(exit.code, 125);
    assertEquals(output, "before\nskiff: the session's sandbox is gone\n");
    const next = await group(launcher, "echo again", ws);
    assertEquals([next.exit.code, next.output], [0, "again\n"]);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: processes a command leaves running are reported as stopped",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const left = await group(launcher, "sleep 30 & echo left", ws);
    assertEquals([left.exit.code, left.exit.strayStopped, left.output], [0, true, "left\n"]);
    await settled(launcher);
    const clean = await group(launcher, "(sleep 0.01) & wait; exit 3", ws);
    assertEquals([clean.exit.code, clean.exit.strayStopped], [3, false]);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: a command's environment is the one a bwrap of its own gives it",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const getEnv = (name: string) =>
    ({ HOME: "/home/someone", LANG: "C.UTF-8", PATH: "/usr/bin:/bin" } as Record<string, string>)[
      name
    ];
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash", getEnv });
  const own = bwrapLauncher(settings(ws), { shell: "/bin/bash", getEnv });
  try {
    const show = 'env | sort; echo "SHLVL=$SHLVL"; umask';
    const pooled = await group(launcher, show, ws);
    let alone = "";
    const running = await startGroup({
      launcher: own,
      command: show,
      cwd: ws,
      onOutput: (text) => alone += text,
    });
    await running.done;
    assert(pooled.output.includes("PWD="), pooled.output);
    assertEquals(pooled.output, alone);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test(
  { name: "bwrap pool: a command holding a NUL byte is not sent to the holder", ...needsPool },
  async () => {
    const { ws, cleanup } = workspace();
    const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
    try {
      const after = launcher.guard!.before();
      const prepared = await launcher.prepare("echo a\0b", ws, { lifeline: true, attach: true });
      after();
      assertEquals(prepared.attached, undefined);
      assert(prepared.argv.length > 0);
      assertEquals(launcher.pool.size, 0);
    } finally {
      await launcher.close();
      cleanup();
    }
  },
);

/** The signal lines of /proc/self/status for a command run unsandboxed. */
async function hostSignalLines(): Promise<string> {
  const { stdout } = await new Deno.Command("/bin/bash", {
    args: ["-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"],
    stdin: "null",
  }).output();
  return new TextDecoder().decode(stdout);
}

Deno.test({
  name: "bwrap pool: a command gets the signals the holder ignores back, as unsandboxed",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  try {
    const inside = await bash(launcher, "grep -E '^Sig(Blk|Ign)' /proc/self/status", ws);
    assertEquals(inside.output, await hostSignalLines());
    await settled(launcher);
    // An interrupt the command sends itself ends it, as it would outside.
    const interrupted = await bash(launcher, "kill -INT $$; echo survived", ws);
    assertEquals([interrupted.code, interrupted.output], [130, ""]);
  } finally {
    await launcher.close();
    cleanup();
  }
});

Deno.test({
  name: "bwrap pool: warm() starts the next command's sandbox ahead, once; the command takes it",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  const holders = () => hostProcessesWith("/run/skiff-holder-");
  const before = new Set(holders());
  const ours = () => holders().filter((pid) => !before.has(pid));
  try {
    // Asked twice (the model began a call, then the pipeline admitted it): one start.
    launcher.warm!();
    launcher.warm!();
    // A command that comes while the start is under way waits for it.
    const first = await bash(launcher, "echo one", ws);
    assertEquals([first.code, first.output], [0, "one\n"]);
    assertEquals(launcher.pool.size, 1);
    const [holder] = ours();
    assert(holder !== undefined, "no holder of this pool is running");
    await settled(launcher);
    // One is free: warming starts nothing more, and the next command runs in the same sandbox.
    launcher.warm!();
    assertEquals(await launcher.pool.idle(), true);
    const second = await bash(launcher, "echo two", ws);
    assertEquals([second.code, second.output], [0, "two\n"]);
    assertEquals(ours(), [holder]);
    await settled(launcher);
    // While a command holds the only sandbox, a second call gets one warmed for it.
    const after = launcher.guard!.before();
    const running = await startGroup({
      launcher,
      command: "sleep 0.5",
      cwd: ws,
      onOutput: () => {},
    });
    launcher.warm!();
    const deadline = Date.now() + 10_000;
    while (launcher.pool.size < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertEquals(launcher.pool.size, 2);
    await running.done;
    after();
  } finally {
    await launcher.close();
    cleanup();
  }
  assertEquals(ours(), [], "a holder outlived the session");
});

Deno.test({
  name: "bwrap pool: a session closed while a warmed sandbox starts leaves no process behind",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  const launcher = bwrapSessionLauncher(settings(ws), { shell: "/bin/bash" });
  // The sandbox's bwrap and its holder: bwrap's arguments bind the workspace.
  const ours = () => liveProcesses((args) => args.some((arg) => arg.includes(ws)));
  try {
    launcher.warm!();
    // Closed as soon as its bubblewrap shows (a process is named by its arguments once it execs).
    const deadline = Date.now() + 5_000;
    while (ours().length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert(ours().length > 0, "the warm start did not begin");
    await launcher.close();
    assertEquals(ours(), []);
    assertEquals(launcher.pool.size, 0);
  } finally {
    cleanup();
  }
});

Deno.test({
  name:
    "bwrap pool: a holder shell that is a multi-call binary (busybox) gives way to the command shell",
  ...needsPool,
}, async () => {
  const { ws, cleanup } = workspace();
  // A stand-in busybox that runs nothing, reached through a link named sh, as on Alpine.
  const bin = Deno.makeTempDirSync({ dir: path.dirname(ws), prefix: "bin-" });
  Deno.writeTextFileSync(path.join(bin, "busybox"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
  Deno.symlinkSync(path.join(bin, "busybox"), path.join(bin, "sh"));
  const launcher = bwrapSessionLauncher(settings(ws), {
    shell: "/bin/bash",
    holderShell: path.join(bin, "sh"),
  });
  try {
    const ran = await bash(launcher, "echo inside", ws);
    assertEquals([ran.code, ran.output], [0, "inside\n"]);
    assertEquals(launcher.pool.availability, { usable: true });
    assertEquals(launcher.pool.size, 1);
  } finally {
    await launcher.close();
    cleanup();
  }
});
