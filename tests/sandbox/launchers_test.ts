import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../support/assert.ts";
import { bwrapLauncher } from "../../src/sandbox/bwrap/bwrap.ts";
import { hiddenMounts } from "../../src/sandbox/hidden.ts";
import { acceptUnsandboxed, chooseLauncher, probeSandboxes } from "../../src/sandbox/choose.ts";
import type { SandboxSettings } from "../../src/sandbox/modes.ts";
import { plainLauncher } from "../../src/sandbox/plain.ts";
import { sandboxExecLauncher, sandboxProfile } from "../../src/sandbox/macos/sandbox_exec.ts";

const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-launch-" }));
Deno.mkdirSync(path.join(ws, ".git", "hooks"), { recursive: true });
Deno.writeTextFileSync(path.join(ws, ".git", "config"), "");
globalThis.addEventListener("unload", () => Deno.removeSync(ws, { recursive: true }));

const env: Record<string, string> = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  OPENAI_API_KEY: "sk-x",
};
const getEnv = (name: string) => env[name];
const settings = (over: Partial<SandboxSettings> = {}): SandboxSettings => ({
  mode: "workspace-write",
  workspace: ws,
  addDirs: [],
  network: false,
  envNames: [],
  ...over,
});

/** Index of a flag sequence in argv, or -1. */
function find(argv: string[], ...sequence: string[]): number {
  return argv.findIndex((_, i) => sequence.every((part, j) => argv[i + j] === part));
}

Deno.test("bwrap argv: read-only root, private /tmp, writable workspace, protected paths re-bound", async () => {
  const { argv, env: childEnv } = await bwrapLauncher(settings(), { getEnv, uid: 1000 })
    .prepare("ls", ws);
  assertEquals(argv[0], "bwrap");
  for (
    const seq of [
      ["--ro-bind", "/", "/"],
      ["--dev", "/dev"],
      ["--proc", "/proc"],
      ["--tmpfs", "/tmp"],
      ["--tmpfs", "/run"],
      ["--bind", ws, ws],
      ["--ro-bind", path.join(ws, ".git/hooks"), path.join(ws, ".git/hooks")],
      ["--ro-bind", path.join(ws, ".git/config"), path.join(ws, ".git/config")],
      ["--unshare-net"],
      ["--unshare-pid"],
      ["--new-session"],
      ["--die-with-parent"],
      ["--cap-drop", "ALL"],
      ["--clearenv"],
      ["--chdir", ws],
      ["--", "sh", "-c"],
    ]
  ) assert(find(argv, ...seq) >= 0, `missing ${seq.join(" ")}`);
  assert(argv.at(-1)!.endsWith("; ls"), argv.at(-1));
  // The re-binds come after the writable bind, or they would be covered by it;
  // `.git` is bound onto itself first so it cannot be renamed away.
  const git = path.join(ws, ".git");
  assert(find(argv, "--bind", ws, ws) < find(argv, "--bind", git, git));
  assert(find(argv, "--bind", git, git) < find(argv, "--ro-bind", path.join(ws, ".git/hooks")));
  assert(find(argv, "--tmpfs", "/tmp") < find(argv, "--bind", ws, ws));
  // git takes a folder for a bare repository only when told so.
  assertEquals(childEnv, {
    PATH: "/usr/bin:/bin",
    HOME: "/home/u",
    TMPDIR: "/tmp",
    SKIFF_CHILD: "1",
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "safe.bareRepository",
    GIT_CONFIG_VALUE_0: "explicit",
  });
  assertEquals(argv.includes("sk-x"), false);
});

Deno.test("bwrap argv: read-only mode binds nothing writable; network on drops --unshare-net", async () => {
  const readOnly =
    (await bwrapLauncher(settings({ mode: "read-only" }), { getEnv }).prepare("ls", ws)).argv;
  assertEquals(readOnly.includes("--bind"), false);
  const extra = Deno.realPathSync(Deno.makeTempDirSync());
  const net =
    (await bwrapLauncher(settings({ network: true, addDirs: [extra] }), { getEnv }).prepare(
      "ls",
      ws,
    ))
      .argv;
  assertEquals(net.includes("--unshare-net"), false);
  assert(find(net, "--bind", extra, extra) >= 0);
  Deno.removeSync(extra);
});

Deno.test("sandbox-exec profile text: writes only in the workspace, protected denied, no network", async () => {
  const profile = sandboxProfile(settings());
  assertStringIncludes(profile, "(version 1)");
  assertStringIncludes(profile, "(deny file-write*)");
  assertStringIncludes(profile, `(allow file-write* (subpath "${ws}")`);
  assertStringIncludes(profile, `(deny file-write* (subpath "${path.join(ws, ".git/hooks")}")`);
  assertStringIncludes(profile, `(subpath "${path.join(ws, "skiff.json")}")`);
  assertStringIncludes(profile, `(literal "${path.join(ws, ".git")}")`);
  assertStringIncludes(profile, "(deny network*)");
  // The denials come after the allowances (later rules win).
  assert(profile.indexOf(`(subpath "${ws}")`) < profile.indexOf("(deny file-write* (subpath"));
  assertEquals(sandboxProfile(settings({ network: true })).includes("(deny network*)"), false);
  assertEquals(sandboxProfile(settings({ mode: "read-only" })).includes(ws), false);
  const quoted = sandboxProfile(settings({ addDirs: ['/odd "dir\\'] }));
  assertStringIncludes(quoted, '(subpath "/odd \\"dir\\\\")');
  const { argv, env: childEnv } = await sandboxExecLauncher(settings(), { getEnv }).prepare(
    "ls",
    ws,
  );
  assertEquals([argv[0], argv[1], argv.slice(3)], ["/usr/bin/sandbox-exec", "-p", [
    "sh",
    "-c",
    "ls",
  ]]);
  assertEquals("OPENAI_API_KEY" in childEnv, false);
});

Deno.test("plainLauncher refuses outside full-access unless a person accepted", () => {
  assertThrows(() => plainLauncher(settings()), Error, "apt-get install bubblewrap");
  assert(plainLauncher(settings({ mode: "full-access" })));
  assert(acceptUnsandboxed(settings()));
});

Deno.test("chooseLauncher: bwrap on Linux, sandbox-exec on macOS, refusal otherwise", () => {
  const none = { bwrap: null, sandboxExec: null };
  const linux = chooseLauncher(settings(), "linux", { ...none, bwrap: "/usr/bin/bwrap" });
  assertEquals([linux.kind, linux.kind === "launcher" && linux.name], ["launcher", "bwrap"]);
  const mac = chooseLauncher(settings(), "darwin", {
    ...none,
    sandboxExec: "/usr/bin/sandbox-exec",
  });
  assertEquals(mac.kind === "launcher" && mac.name, "sandbox-exec");
  const refusal = chooseLauncher(settings(), "linux", none);
  assert(refusal.kind === "refusal");
  assertStringIncludes(refusal.message, "apt-get install bubblewrap");
  assertStringIncludes(refusal.message, "--sandbox full-access");
  assertStringIncludes(refusal.warning, "full user rights");
  const windows = chooseLauncher(settings(), "windows", none);
  assertEquals(windows.kind, "refusal");
  const full = chooseLauncher(settings({ mode: "full-access" }), "linux", none);
  assertEquals(full.kind === "launcher" && full.name, "none");
});

Deno.test("probeSandboxes reports bwrap only when it actually runs", async () => {
  const works = await probeSandboxes(
    "linux",
    (argv) => Promise.resolve(argv[0] === "/usr/local/bin/bwrap"),
  );
  assertEquals(works, { bwrap: "/usr/local/bin/bwrap", sandboxExec: null });
  const broken = await probeSandboxes("linux", () => Promise.resolve(false));
  assertEquals(broken, { bwrap: null, sandboxExec: null });
});

Deno.test("bwrap argv as root: a user namespace, /proc/sys read-only, UTS and IPC unshared, a pids cgroup step", async () => {
  const { argv } = await bwrapLauncher(settings(), { getEnv, uid: 0 }).prepare("ls", ws);
  // Root: a shell step makes the command's pids cgroup, then execs bwrap.
  assertEquals(argv.slice(0, 2), ["sh", "-c"]);
  assertEquals(argv[4], "1024");
  assertEquals(argv[5], "bwrap");
  for (
    const seq of [
      ["--unshare-user", "--disable-userns"],
      ["--unshare-uts"],
      ["--unshare-ipc"],
      ["--ro-bind", "/proc/sys", "/proc/sys"],
      ["--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"],
      ["--size", String(1024 * 1024 * 1024), "--tmpfs", "/tmp"],
      ["--size", String(1024 * 1024 * 1024), "--tmpfs", "/dev/shm"],
      ["--remount-ro", "/dev"],
    ]
  ) assert(find(argv, ...seq) >= 0, `missing ${seq.join(" ")}`);
  // /proc/sys is covered after /proc is mounted, or the new /proc would hide it.
  assert(find(argv, "--proc", "/proc") < find(argv, "--ro-bind", "/proc/sys"));
  // Not root: no cgroup step; RLIMIT_NPROC inside the user namespace instead.
  const user = (await bwrapLauncher(settings({ limits: { tmpMB: 64, processes: 300 } }), {
    getEnv,
    uid: 1000,
  }).prepare("ls", ws)).argv;
  assertEquals(user[0], "bwrap");
  assert(find(user, "--unshare-user-try") >= 0);
  assert(find(user, "--size", String(64 * 1024 * 1024), "--tmpfs", "/tmp") >= 0);
  assertStringIncludes(user.at(-1)!, "prlimit --nproc=300");
});

Deno.test("bwrap argv: hidden folders get an empty read-only tmpfs, hidden files /dev/null, after the workspace bind", async () => {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-home-" }));
  try {
    Deno.mkdirSync(path.join(home, ".ssh"));
    Deno.writeTextFileSync(path.join(home, ".netrc"), "machine x password y\n");
    const hidden = hiddenMounts([
      path.join(home, ".ssh"),
      path.join(home, ".netrc"),
      path.join(home, "none"),
    ]);
    const { argv } = await bwrapLauncher(settings({ hidden }), { getEnv, uid: 1000 })
      .prepare("ls", ws);
    const ssh = path.join(home, ".ssh");
    assert(find(argv, "--tmpfs", ssh, "--remount-ro", ssh) > find(argv, "--bind", ws, ws));
    assert(find(argv, "--ro-bind", "/dev/null", path.join(home, ".netrc")) >= 0);
    assertEquals(argv.includes(path.join(home, "none")), false, "a missing path cannot be mounted");
    // A hidden folder holding the workspace is left alone: hiding it would hide the work.
    const around = (await bwrapLauncher(settings({ hidden: hiddenMounts([path.dirname(ws)]) }), {
      getEnv,
      uid: 1000,
    }).prepare("ls", ws)).argv;
    assertEquals(find(around, "--remount-ro", path.dirname(ws)), -1);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("sandbox-exec profile: hidden paths can be neither read nor written", () => {
  const hidden = [{ path: "/Users/u/.ssh", folder: true }, {
    path: "/Users/u/.netrc",
    folder: false,
  }];
  const profile = sandboxProfile(settings({ hidden }));
  assertStringIncludes(
    profile,
    '(deny file-read* file-write* (subpath "/Users/u/.ssh") (subpath "/Users/u/.netrc"))',
  );
  // After "(allow default)": later rules win.
  assert(profile.indexOf("(allow default)") < profile.indexOf("(deny file-read*"));
});

Deno.test({
  name:
    "bwrap: only a caller that asks for the lifeline loses stdin to it (an MCP server keeps its)",
  ignore: !(await probeSandboxes()).bwrap,
}, async () => {
  const launcher = bwrapLauncher(settings({ hidden: [] }));
  for (const lifeline of [false, true]) {
    const prepared = await launcher.prepare("cat", ws, { lifeline });
    assertEquals(prepared.lifeline, lifeline);
    const child = new Deno.Command(prepared.argv[0], {
      args: prepared.argv.slice(1),
      env: prepared.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0"}\n'));
    await writer.close();
    const output = new TextDecoder().decode((await child.output()).stdout);
    // With the lifeline the line is skiff's "here", and the command reads /dev/null.
    assertEquals(output, lifeline ? "" : '{"jsonrpc":"2.0"}\n');
  }
});
