/**
 * End-to-end escape attempts against the OS sandbox itself: root writing
 * host sysctls, exhausting processes, memory-backed folders and the data
 * folder, reading the user's keys and skiff's own config, and a sandbox
 * outliving a killed skiff. Each runs `skiff run --json` as a real process
 * with the scripted mock as the attacker.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, spawnSkiff } from "../support/cli.ts";
import { MAX_SPILL_BYTES } from "../../src/tools/truncate.ts";
import { sessionSandboxMissing } from "./_pooled_runner.ts";
import { liveProcesses } from "../support/processes.ts";
import {
  assertNoSecrets,
  bash,
  everythingSent,
  lastToolResults,
  needsBwrap,
  read,
  type ToolMessage,
  withAttack,
} from "./e2e_support.ts";

const isRoot = Deno.uid() === 0;
if (!isRoot) {
  console.warn(
    "!!! e2e sandbox: not running as root; the root-only attacks (sysctl writes, the pids " +
      "cgroup) are tried as this user, which proves less. CI runs them as root. !!!",
  );
}

/** One tool call, then done; the tool result the model saw. */
async function runOne(
  call: { name: string; arguments: Record<string, unknown> },
  setup: (sandbox: Parameters<Parameters<typeof withAttack>[1]>[0]) => Promise<void> = () =>
    Promise.resolve(),
  flags: string[] = ["--yes"],
): Promise<string> {
  let seen = "";
  await withAttack([{ toolCalls: [call] }, { text: "done" }], async (sandbox, mock) => {
    await setup(sandbox);
    const result = await runSkiff(["run", "--json", ...flags, "go"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    const results = lastToolResults(mock);
    assertEquals(results.length, 1, result.stdout);
    seen = results[0].content;
    assertNoSecrets(everythingSent(mock), result.stdout, result.stderr);
  });
  return seen;
}

function writeGlobalConfig(configDir: string, config: unknown): Promise<void> {
  return Deno.writeTextFile(path.join(configDir, "config.json"), JSON.stringify(config));
}

Deno.test({
  name: "e2e sandbox: a command cannot write a host sysctl (same-value write to core_pattern)",
  ...needsBwrap,
}, async () => {
  // The attack writes kernel.core_pattern back with its own current value:
  // if it gets through, nothing on the host changes, and the test fails.
  const hostUserNs = Deno.readLinkSync("/proc/self/ns/user");
  const hostUtsNs = Deno.readLinkSync("/proc/self/ns/uts");
  const output = await runOne(bash(
    'v=$(cat /proc/sys/kernel/core_pattern); if printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern; ' +
      "then echo SYSCTL-WRITTEN; else echo sysctl-blocked; fi; " +
      "grep -q ' /proc/sys .*ro,' /proc/self/mountinfo && echo proc-sys-read-only; " +
      'echo "user=$(readlink /proc/self/ns/user) uts=$(readlink /proc/self/ns/uts)"',
  ));
  assertStringIncludes(output, "sysctl-blocked");
  assert(!output.includes("SYSCTL-WRITTEN"), output);
  assertStringIncludes(output, "proc-sys-read-only");
  assert(!output.includes(`user=${hostUserNs}`), `no user namespace of its own: ${output}`);
  assert(!output.includes(`uts=${hostUtsNs}`), `no UTS namespace of its own: ${output}`);
});

/** Pids of host processes whose command line holds `token`. */
function processesWith(token: string): number[] {
  return liveProcesses((args) => args.join("\0").includes(token));
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

Deno.test({
  name: "e2e sandbox: a fork bomb stops at the process limit",
  ...needsBwrap,
}, async () => {
  const limit = 100;
  const token = "987.654"; // sleep's argument: the bomb's processes, found by it
  // The bomb runs in a subshell (a shell may exit when fork fails); then the
  // command counts the processes of its own pid namespace with builtins only
  // (no fork is left to spend), so the count does not depend on sampling
  // from outside catching the moment before the command ends.
  const bomb = `(i=0; while [ $i -lt 2000 ]; do sleep ${token} & i=$((i+1)); done) 2>/dev/null; ` +
    "set -- /proc/[0-9]*; echo INSIDE=$#";
  let most = 0;
  let inside = -1;
  try {
    await withAttack([
      { toolCalls: [bash(bomb)] },
      { text: "done" },
    ], async (sandbox, mock) => {
      await writeGlobalConfig(sandbox.configDir, { sandbox: { limits: { processes: limit } } });
      const child = spawnSkiff(["run", "--json", "--yes", "bomb"], sandbox);
      const status = child.status;
      let finished = false;
      status.then(() => finished = true);
      while (!finished) {
        most = Math.max(most, processesWith(`sleep\0${token}`).length);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      await child.output().catch(() => {});
      const results = lastToolResults(mock);
      const match = results[0]?.content.match(/INSIDE=(\d+)/);
      assert(match, `the command did not report its count: ${results[0]?.content}`);
      inside = Number(match[1]);
    });
    assert(inside > 10, `the bomb did not run at all (${inside} processes inside)`);
    assert(inside <= limit, `${inside} processes inside, over the limit of ${limit}`);
    assert(most <= limit, `${most} processes at once, over the limit of ${limit}`);
  } finally {
    killAll(processesWith(`sleep\0${token}`));
  }
});

Deno.test({
  name: "e2e sandbox: /tmp and /dev/shm are size-limited, /dev is read-only",
  ...needsBwrap,
}, async () => {
  const output = await runOne(
    bash(
      "for f in /tmp/fill /dev/shm/fill; do " +
        "if dd if=/dev/zero of=$f bs=1M count=40 2>/dev/null; then echo FILLED-$f; " +
        "else echo full-$f; fi; done; touch /dev/planted 2>/dev/null && echo DEV-WRITABLE; true",
    ),
    (sandbox) => writeGlobalConfig(sandbox.configDir, { sandbox: { limits: { tmpMB: 16 } } }),
  );
  assertStringIncludes(output, "full-/tmp/fill");
  assertStringIncludes(output, "full-/dev/shm/fill");
  assert(!output.includes("FILLED"), output);
  assert(!output.includes("DEV-WRITABLE"), output);
});

Deno.test({
  name: "e2e sandbox: endless output spills at most the cap into the data folder",
  ...needsBwrap,
}, async () => {
  const size = MAX_SPILL_BYTES + 8 * 1024 * 1024;
  await withAttack([
    { toolCalls: [bash(`head -c ${size} /dev/zero | tr '\\0' 'a'; echo; echo tail-marker`)] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "--yes", "spill"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    const spills = path.join(sandbox.dataDir, "tool-output");
    let largest = 0;
    // One folder per session (src/store/tool_output.ts), one file per call.
    for (const session of Deno.readDirSync(spills)) {
      for (const entry of Deno.readDirSync(path.join(spills, session.name))) {
        largest = Math.max(
          largest,
          Deno.statSync(path.join(spills, session.name, entry.name)).size,
        );
      }
    }
    assert(largest > 0, "nothing was spilled");
    assert(largest <= MAX_SPILL_BYTES + 1024, `a spill file of ${largest} bytes`);
    // What the model sees still ends with the command's last line.
    assertStringIncludes(lastToolResults(mock)[0].content, "tail-marker");
  });
});

const CREDENTIAL = "claude-oauth-token-5e1f";
const GLOBAL_KEY = "sk-global-config-key-8d2a";

async function plantCredentials(sandbox: { home: string; configDir: string }): Promise<void> {
  await Deno.mkdir(path.join(sandbox.home, ".claude"), { recursive: true });
  await Deno.writeTextFile(
    path.join(sandbox.home, ".claude", ".credentials.json"),
    JSON.stringify({ token: CREDENTIAL }),
  );
  await Deno.mkdir(path.join(sandbox.home, ".aws"), { recursive: true });
  await Deno.writeTextFile(path.join(sandbox.home, ".aws", "credentials"), `${CREDENTIAL}\n`);
  await Deno.writeTextFile(path.join(sandbox.home, ".netrc"), `password ${CREDENTIAL}\n`);
  // Not a key skiff uses (OPENAI_API_KEY wins); it stands for one kept there.
  await Deno.writeTextFile(path.join(sandbox.configDir, "notes.txt"), `${GLOBAL_KEY}\n`);
}

Deno.test({
  name:
    "e2e sandbox: commands cannot read SSH keys, cloud and agent credentials, skiff's config or data",
  ...needsBwrap,
}, async () => {
  let dataDir = "";
  const output = await runOne(
    bash(
      "cat ~/.ssh/id_rsa ~/.claude/.credentials.json ~/.aws/credentials ~/.netrc " +
        '"$CONFIG/notes.txt" 2>&1; ls -A "$DATA" ~/.ssh; echo listed',
    ),
    async (sandbox) => {
      await plantCredentials(sandbox);
      dataDir = sandbox.dataDir;
      await Deno.writeTextFile(path.join(sandbox.dataDir, "marker-session.txt"), "other session\n");
      // The command learns the folders' names the way an attacker would: they are no secret.
      await writeGlobalConfig(sandbox.configDir, { sandbox: { env: ["CONFIG", "DATA"] } });
      sandbox.env.CONFIG = sandbox.configDir;
      sandbox.env.DATA = sandbox.dataDir;
    },
  );
  assertStringIncludes(output, "listed");
  assert(!output.includes(CREDENTIAL), output);
  assert(!output.includes(GLOBAL_KEY), output);
  assert(!output.includes("marker-session"), `the data folder ${dataDir} was listed: ${output}`);
});

Deno.test("e2e sandbox: the file tools refuse hidden paths even with --yes, naming the config key", async () => {
  let home = "";
  const output = await runOne(read("~/.claude/.credentials.json"), async (sandbox) => {
    home = sandbox.home;
    await plantCredentials(sandbox);
  });
  assert(!output.includes(CREDENTIAL), output);
  assertStringIncludes(output, "sandbox.hidden");
  assertStringIncludes(output, path.join(home, ".claude"));
  const configRead = await runOne(read("notes.txt"), async (sandbox) => {
    await plantCredentials(sandbox);
    await Deno.symlink(
      path.join(sandbox.configDir, "notes.txt"),
      path.join(sandbox.workspace, "notes.txt"),
    );
  });
  assert(!configRead.includes(GLOBAL_KEY), configRead);
});

Deno.test("e2e sandbox: a project file cannot show a hidden path again; the user's global config can", async () => {
  const showClaude = { sandbox: { hidden: { "~/.claude": false } } };
  const fromProject = await runOne(read("~/.claude/.credentials.json"), async (sandbox) => {
    await plantCredentials(sandbox);
    await Deno.writeTextFile(
      path.join(sandbox.workspace, "skiff.json"),
      JSON.stringify(showClaude),
    );
  }, ["--yes", "--trust-project"]);
  assert(!fromProject.includes(CREDENTIAL), fromProject);
  assertStringIncludes(fromProject, "sandbox.hidden");
  // Control: the user's own word shows it (so the refusal above is the project rule's doing).
  let sent = "";
  await withAttack([{ toolCalls: [read("~/.claude/.credentials.json")] }, { text: "done" }], async (
    sandbox,
    mock,
  ) => {
    await plantCredentials(sandbox);
    await writeGlobalConfig(sandbox.configDir, showClaude);
    // The engine's own read grant no longer covers ~/.claude (only its skills
    // folder), so the user also names the folder; the project run above is
    // refused by the hidden rule before any grant matters.
    const claude = path.join(sandbox.home, ".claude");
    const result = await runSkiff(["run", "--json", "--yes", "--add-dir", claude, "go"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    sent = lastToolResults(mock)[0]?.content ?? "";
  });
  assertStringIncludes(sent, CREDENTIAL);
});

Deno.test({
  name: "e2e sandbox: SIGKILL of skiff while a command starts leaves no process of it behind",
  ...needsBwrap,
}, async () => {
  // Killed at the first sight of the launcher (bubblewrap still setting up)
  // and once the command runs.
  for (const when of ["starting", "running"] as const) {
    const token = when === "starting" ? "876.543" : "765.432";
    try {
      await withAttack([{ toolCalls: [bash(`sleep ${token}`)] }, { text: "done" }], async (
        sandbox,
      ) => {
        // Many folders to bind make bubblewrap's setup long enough to be caught in it.
        const addDirs: string[] = [];
        for (let i = 0; i < (when === "starting" ? 400 : 0); i++) {
          const dir = path.join(sandbox.outside, `d${i}`);
          await Deno.mkdir(dir);
          addDirs.push("--add-dir", dir);
        }
        const child = spawnSkiff(["run", "--json", "--yes", ...addDirs, "start"], sandbox);
        const deadline = Date.now() + 20_000;
        // Starting: bwrap and its child in the new namespaces, still setting up —
        // a bwrap of the command's own (the command in its argv), or the
        // session sandbox's (its holder's name in the argv; the command
        // reaches the holder later, on a pipe).
        const [signs, count] = when === "starting"
          ? [[token, "/run/skiff-holder-"], 2]
          : [[`sleep\0${token}`], 1];
        // This run's own sandboxes, by their holders' names, which the start step and bubblewrap
        // carry in their arguments beside this run's workspace; the holder itself, by its name.
        // Another skiff on the machine, or what an earlier test left, is not this run's.
        const holders = new Set<string>();
        const noteHolders = () => {
          for (const pid of liveProcesses((args) => args.join("\0").includes(sandbox.workspace))) {
            try {
              const line = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
              for (const name of line.match(/\/run\/skiff-holder-[0-9a-f-]+/g) ?? []) {
                holders.add(name);
              }
            } catch {
              // Gone meanwhile.
            }
          }
        };
        const ours = (sign: string) => {
          if (sign !== "/run/skiff-holder-") return processesWith(sign);
          noteHolders();
          return [...holders].flatMap((name) => processesWith(name));
        };
        const seen = () => Math.max(...signs.map((sign) => ours(sign).length));
        let most = 0;
        while ((most = Math.max(most, seen())) < count && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        assert(most >= count, `the command never started (${when})`);
        child.kill("SIGKILL");
        await child.output().catch(() => {});
        // Its own sandbox may still be finishing setup: give it time to notice, not forever.
        const remaining = () => [...ours(token), ...ours("/run/skiff-holder-")];
        const settled = Date.now() + 10_000;
        while (remaining().length && Date.now() < settled) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const left = remaining();
        const describe = (pid: number) => {
          try {
            const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
            const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0")[0];
            return `${pid} ${cmd} ${stat.split(") ")[1]?.slice(0, 12)}`;
          } catch {
            return `${pid}`;
          }
        };
        assertEquals(left, [], `processes outlived skiff (${when}): ${left.map(describe)}`);
      });
    } finally {
      killAll(processesWith(token));
    }
  }
});

Deno.test({
  name:
    "e2e sandbox: children a command backgrounds or detaches (setsid, nohup) do not outlive it in the session sandbox",
  ignore: sessionSandboxMissing !== null,
}, async () => {
  const token = "654.321";
  // The first command leaves three sleeps behind and names its sandbox (pid 1's
  // command line holds the holder's own random name); the second, in the same
  // sandbox, lists what runs there and names its sandbox too.
  const leave = `sleep ${token} & setsid sleep ${token} & ` +
    `nohup sleep ${token} >/dev/null 2>&1 & tr '\\0' '\\n' < /proc/1/cmdline | head -1`;
  const look =
    "tr '\\0' '\\n' < /proc/1/cmdline | head -1; ps -eo args= | grep -c '^sleep' || true";
  let contents: string[] = [];
  let hostLeft: number[] = [];
  try {
    await withAttack([
      { toolCalls: [bash(leave)] },
      { toolCalls: [bash(look)] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(["run", "--json", "--yes", "go"], sandbox);
      assert(result.code === 0, result.stderr);
      contents = mock.requests
        .flatMap((request) => (request as { messages: ToolMessage[] }).messages)
        .filter((message) => message.role === "tool")
        .map((message) => message.content);
      hostLeft = processesWith(`sleep\0${token}`);
    });
  } finally {
    killAll(processesWith(`sleep\0${token}`));
  }
  const first = contents[0].split("\n")[0];
  const [second, count] = contents.at(-1)!.split("\n");
  assert(first.startsWith("/run/skiff-holder-"), `not run in the session sandbox: ${first}`);
  assertEquals(second, first, "the second command ran in another sandbox");
  assertEquals(count, "0", `processes of the first command were still running: ${contents}`);
  assertEquals(hostLeft, []);
});
