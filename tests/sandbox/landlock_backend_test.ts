/**
 * The Landlock backend: the chooser's order and its refusals, the ruleset's
 * hidden-path subtraction, a project file that cannot choose it, and end to
 * end through `skiff run` with the backend forced by flag and by environment.
 * The process attempts are skipped loudly where Landlock does not work here.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  type AvailableSandboxes,
  chooseLauncher,
  probeSandboxes,
} from "../../src/sandbox/choose.ts";
import { FsAccess } from "../../src/sandbox/landlock/landlock.ts";
import { landlockLauncher } from "../../src/sandbox/landlock/launcher.ts";
import { READ_RIGHTS, readRules } from "../../src/sandbox/landlock/rules.ts";
import type { SandboxSettings } from "../../src/sandbox/modes.ts";
import { limitProjectConfig } from "../../src/trust/project_trust.ts";
import { sandboxBackendFlag } from "../../src/host/setup.ts";
import { UsageError } from "../../src/contracts/usage_error.ts";
import {
  bash,
  everythingSent,
  lastToolResults,
  OUTSIDE_SECRET,
  SSH_SECRET,
  withAttack,
} from "../escape/e2e_support.ts";

const found = await probeSandboxes();
const ABI = found.landlock ?? null;
if (ABI === null) {
  console.warn(
    `\n!!! LANDLOCK BACKEND: Landlock does not work here (${found.reasons?.landlock}); ` +
      "the process tests are SKIPPED. !!!\n",
  );
}
const needsLandlock = { ignore: ABI === null };

const settings: SandboxSettings = {
  mode: "workspace-write",
  workspace: "/var/tmp",
  addDirs: [],
  network: false,
  envNames: [],
};
const none: AvailableSandboxes = {
  bwrap: null,
  sandboxExec: null,
  landlock: null,
  reasons: { bwrap: "uid map: Permission denied", landlock: "Landlock is disabled (errno 95)" },
};

Deno.test("chooser: bubblewrap when it works, then Landlock, then a refusal naming both reasons", () => {
  const both = { ...none, bwrap: "/usr/bin/bwrap", landlock: 7 };
  assertEquals(chooseLauncher(settings, "linux", both).kind, "launcher");
  assertEquals((chooseLauncher(settings, "linux", both) as { name: string }).name, "bwrap");
  const onlyLandlock = { ...none, landlock: 7 };
  assertEquals(
    (chooseLauncher(settings, "linux", onlyLandlock) as { name: string }).name,
    "landlock",
  );
  const refusal = chooseLauncher(settings, "linux", none);
  assert(refusal.kind === "refusal");
  assert(refusal.message.includes("uid map: Permission denied"), refusal.message);
  assert(refusal.message.includes("Landlock is disabled (errno 95)"), refusal.message);
  assert(refusal.message.includes("--sandbox full-access"), refusal.message);
});

Deno.test("chooser: a forced backend that does not work is refused with its reason, never another", () => {
  const onlyLandlock = { ...none, landlock: 7 };
  const bwrap = chooseLauncher(settings, "linux", onlyLandlock, undefined, "bwrap");
  assert(bwrap.kind === "refusal", "fell back from bwrap");
  assert(bwrap.message.includes("'bwrap'") && bwrap.message.includes("uid map"), bwrap.message);
  const onlyBwrap = { ...none, bwrap: "/usr/bin/bwrap" };
  const landlock = chooseLauncher(settings, "linux", onlyBwrap, undefined, "landlock");
  assert(landlock.kind === "refusal", "fell back from landlock");
  assert(landlock.message.includes("errno 95"), landlock.message);
  const forced = chooseLauncher(
    settings,
    "linux",
    { ...onlyBwrap, landlock: 7 },
    undefined,
    "landlock",
  );
  assertEquals((forced as { name: string }).name, "landlock");
});

Deno.test("ruleset: a hidden folder is left out by granting its siblings, its parent only listable", () => {
  const tree: Record<string, { name: string; folder: boolean }[]> = {
    "/": [{ name: "home", folder: true }, { name: "usr", folder: true }],
    "/home": [{ name: "me", folder: true }],
    "/home/me": [
      { name: ".ssh", folder: true },
      { name: ".bashrc", folder: false },
      { name: "code", folder: true },
    ],
  };
  const rules = new Map(readRules(["/home/me/.ssh"], (dir) => tree[dir]));
  assertEquals(rules.get("/usr"), READ_RIGHTS);
  assertEquals(rules.get("/home/me/code"), READ_RIGHTS);
  assertEquals(rules.get("/home/me/.bashrc"), FsAccess.readFile | FsAccess.execute);
  assertEquals(rules.get("/home/me"), FsAccess.readDir);
  assertEquals(rules.get("/"), FsAccess.readDir);
  assert(!rules.has("/home/me/.ssh"), "the hidden folder was granted");
});

Deno.test("project config: a project file cannot choose the Landlock backend; the user can", () => {
  const project = {
    file: "/p/skiff.json",
    root: "/p",
    config: { sandbox: { backend: "landlock" as const } },
  };
  const ignored = limitProjectConfig({
    config: { sandbox: { backend: "landlock" } },
    project,
    user: {},
  });
  assertEquals(ignored.config.sandbox?.backend, "auto");
  assert(ignored.warnings.some((warning) => warning.includes("--sandbox-backend landlock")));
  const own = limitProjectConfig({
    config: { sandbox: { backend: "landlock" } },
    project,
    user: { backend: "landlock" },
  });
  assertEquals([own.config.sandbox?.backend, own.warnings], ["landlock", []]);
});

Deno.test("SKIFF_SANDBOX_BACKEND: read like the flag, the flag wins, a wrong value is a usage error", () => {
  const env = (value: string) => (name: string) =>
    name === "SKIFF_SANDBOX_BACKEND" ? value : undefined;
  assertEquals(sandboxBackendFlag(undefined, env("landlock")), "landlock");
  assertEquals(sandboxBackendFlag("bwrap", env("landlock")), "bwrap");
  assertEquals(sandboxBackendFlag(undefined, () => undefined), undefined);
  let error: unknown;
  try {
    sandboxBackendFlag(undefined, env("landlok"));
  } catch (caught) {
    error = caught;
  }
  assert(error instanceof UsageError && error.message.includes("SKIFF_SANDBOX_BACKEND"));
});

Deno.test({
  name: "landlock as root: the command runs inside a pids cgroup (the process limit)",
  ...needsLandlock,
  ignore: ABI === null || Deno.uid() !== 0,
}, async () => {
  const ws = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-landlock-" });
  try {
    const launcher = landlockLauncher({ ...settings, workspace: ws }, { abi: ABI ?? 1 });
    const { argv, env } = await launcher.prepare("cat /proc/self/cgroup; echo TMP=$TMPDIR", ws);
    const output = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      env,
      clearEnv: true,
      cwd: ws,
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    const writable = ["/sys/fs/cgroup/pids/cgroup.procs", "/sys/fs/cgroup/cgroup.procs"].some(
      (file) => {
        try {
          Deno.openSync(file, { write: true }).close();
          return true;
        } catch {
          return false;
        }
      },
    );
    if (!writable) {
      console.warn("!!! no writable pids cgroup here: the limit is not bounded (see docs) !!!");
    } else assert(/skiff-\d+/.test(text), `not in a skiff cgroup: ${text}`);
    assert(/TMP=\/tmp\/skiff-landlock-\d+/.test(text), text);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

async function landlockRun(how: { flag?: boolean; env?: boolean }) {
  const command =
    `echo made > made.txt; echo x > ../planted.txt 2>/dev/null || echo write-blocked; ` +
    `cat ~/.ssh/id_rsa 2>/dev/null || echo read-blocked; echo "key=[$OPENAI_API_KEY]"`;
  await withAttack([{ toolCalls: [bash(command)] }, { text: "done" }], async (sandbox, mock) => {
    const args = [
      "run",
      "--json",
      "--yes",
      ...(how.flag ? ["--sandbox-backend", "landlock"] : []),
      "go",
    ];
    const result = await runSkiff(args, sandbox, {
      env: how.env ? { SKIFF_SANDBOX_BACKEND: "landlock" } : {},
      input: "",
    });
    const seen = lastToolResults(mock)[0]?.content ?? "";
    const text = seen;
    assert(text.includes("write-blocked"), text);
    assert(!Deno.statSync(path.dirname(sandbox.workspace)).isFile);
    let planted = true;
    try {
      Deno.statSync(path.join(path.dirname(sandbox.workspace), "planted.txt"));
    } catch {
      planted = false;
    }
    assert(!planted, "a file was planted outside the workspace");
    assertEquals(result.code, 0, result.stderr);
    assert(Deno.readTextFileSync(path.join(sandbox.workspace, "made.txt")) === "made\n");
    assert(text.includes("read-blocked"), text);
    assert(
      !everythingSent(mock).includes(SSH_SECRET) && !everythingSent(mock).includes(OUTSIDE_SECRET),
    );
    assert(text.includes("key=[]"), text);
  });
}

Deno.test({
  name: "e2e: skiff run --sandbox-backend landlock runs commands under Landlock",
  ...needsLandlock,
}, async () => {
  await landlockRun({ flag: true });
});

Deno.test(
  { name: "e2e: SKIFF_SANDBOX_BACKEND=landlock forces it too", ...needsLandlock },
  async () => {
    await landlockRun({ env: true });
  },
);

Deno.test("e2e: a wrong --sandbox-backend is refused with exit 2", async () => {
  await withAttack([{ text: "done" }], async (sandbox) => {
    const result = await runSkiff(["run", "--sandbox-backend", "chroot", "go"], sandbox);
    assertEquals(result.code, 2, result.stderr);
    assert(result.stderr.includes("bwrap"), result.stderr);
  });
});

Deno.test({
  name: "landlock: a link planted where the command's temp folder goes is not followed",
  ...needsLandlock,
}, async () => {
  const ws = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-landlock-" });
  const target = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-landlock-target-" });
  // A temp root of the test's own, so no other command's step sweeps the planted links.
  const root = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-landlock-root-" });
  // The step's pid is not known in advance: plant a link for each of the next pids.
  const last = Number(Deno.readTextFileSync("/proc/sys/kernel/ns_last_pid"));
  const planted: string[] = [];
  for (let pid = last + 1; pid <= last + 3000; pid++) {
    const link = `${root}/skiff-landlock-${pid}`;
    try {
      Deno.symlinkSync(target, link);
      planted.push(link);
    } catch { /* taken */ }
  }
  try {
    const launcher = landlockLauncher({ ...settings, workspace: ws }, {
      abi: ABI ?? 1,
      tempRoot: root,
    });
    const { argv, env } = await launcher.prepare(`echo x > "$TMPDIR/p"; echo "$TMPDIR"`, ws);
    const output = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      env,
      clearEnv: true,
      cwd: ws,
    }).output();
    const tempDir = new TextDecoder().decode(output.stdout).trim();
    assert(planted.includes(tempDir), `the step's pid fell outside the planted range: ${tempDir}`);
    assert(Deno.lstatSync(tempDir).isDirectory, `${tempDir} is still a link`);
    assertEquals([...Deno.readDirSync(target)], [], "the command wrote through the planted link");
  } finally {
    Deno.removeSync(root, { recursive: true });
    Deno.removeSync(ws, { recursive: true });
    Deno.removeSync(target, { recursive: true });
  }
});
