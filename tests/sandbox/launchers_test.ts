import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../support/assert.ts";
import { bwrapLauncher } from "../../src/sandbox/bwrap.ts";
import { acceptUnsandboxed, chooseLauncher, probeSandboxes } from "../../src/sandbox/choose.ts";
import type { SandboxSettings } from "../../src/sandbox/modes.ts";
import { plainLauncher } from "../../src/sandbox/plain.ts";
import { sandboxExecLauncher, sandboxProfile } from "../../src/sandbox/sandbox_exec.ts";

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
  const { argv, env: childEnv } = await bwrapLauncher(settings(), { getEnv }).prepare("ls", ws);
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
      ["--", "sh", "-c", "ls"],
    ]
  ) assert(find(argv, ...seq) >= 0, `missing ${seq.join(" ")}`);
  // The re-binds come after the writable bind, or they would be covered by it;
  // `.git` is bound onto itself first so it cannot be renamed away.
  const git = path.join(ws, ".git");
  assert(find(argv, "--bind", ws, ws) < find(argv, "--bind", git, git));
  assert(find(argv, "--bind", git, git) < find(argv, "--ro-bind", path.join(ws, ".git/hooks")));
  assert(find(argv, "--tmpfs", "/tmp") < find(argv, "--bind", ws, ws));
  assertEquals(childEnv, { PATH: "/usr/bin:/bin", HOME: "/home/u", TMPDIR: "/tmp" });
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
