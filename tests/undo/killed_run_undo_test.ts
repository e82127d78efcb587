/**
 * `skiff undo` after a run killed with SIGKILL at the points where undo used
 * to come out wrong, each placed on purpose: while a command runs, after a
 * command ended but before the run did, after a write landed but before its
 * result was stored, a temporary file left by a killed write, an undo killed
 * half-way; and a prompt that left every file as it was.
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { runSkiff, type Sandbox, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { processesHolding } from "../support/processes.ts";
import { hasBwrap } from "../escape/e2e_support.ts";
import { openStore } from "../../src/store/store.ts";
import { undoLedger } from "../../src/engine/opened_session.ts";

const flags = hasBwrap ? [] : ["--sandbox", "full-access"];
if (!hasBwrap) console.warn("WARNING: bubblewrap is missing: commands here run with full access");
const RUN = ["run", ...flags, "--allow", "bash(*)", "go"];

const at = (sandbox: Sandbox, name: string) => path.join(sandbox.workspace, name);
const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 50) {
    if (waited > 30_000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs skiff, waits for `ready`, kills it with SIGKILL, and ends what its command left running. */
async function runAndKill(
  sandbox: Sandbox,
  ready: () => boolean | Promise<boolean>,
  marker?: string,
): Promise<void> {
  const child = spawnSkiff(RUN, sandbox);
  void child.stdout.pipeTo(new WritableStream());
  void child.stderr.pipeTo(new WritableStream());
  await until(ready, "the run to reach the kill point");
  child.kill("SIGKILL");
  await child.status;
  if (marker) {
    for (const pid of processesHolding(marker)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Ended meanwhile.
      }
    }
    await until(() => processesHolding(marker).length === 0, "the command to end");
  }
}

async function seed(sandbox: Sandbox): Promise<void> {
  await Deno.writeTextFile(at(sandbox, "a.txt"), "a0\n");
  await Deno.writeTextFile(at(sandbox, "b.txt"), "b0\n");
}

Deno.test("killed while a command runs: undo puts back what the command had written", async () => {
  const marker = "skiff-killed-command-marker";
  const command = `printf 'b1\\n' >> b.txt; printf 'new\\n' > made.txt; sleep 30; true ${marker}`;
  const script: MockTurn[] = [
    { toolCalls: [{ name: "bash", arguments: { command } }] },
    { text: "done" },
  ];
  await withMockSandbox(script, async (sandbox) => {
    await seed(sandbox);
    await runAndKill(sandbox, () => exists(at(sandbox, "made.txt")), marker);
    assertEquals(await Deno.readTextFile(at(sandbox, "b.txt")), "b0\nb1\n", "the command wrote");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertEquals(await Deno.readTextFile(at(sandbox, "b.txt")), "b0\n");
    assertEquals(await exists(at(sandbox, "made.txt")), false);
    assertMatch(undo.stdout, /2 file\(s\) put back, 0 refused/);
  });
});

Deno.test("killed after a command ended, before the run did: undo takes its files for skiff's", async () => {
  const script: MockTurn[] = [
    { toolCalls: [{ name: "bash", arguments: { command: "printf 'b1\\n' >> b.txt" } }] },
    { hang: true },
  ];
  let requests = 0;
  await withMockSandbox(script, async (sandbox) => {
    await seed(sandbox);
    await runAndKill(sandbox, () => requests === 2);
    assertEquals(await Deno.readTextFile(at(sandbox, "b.txt")), "b0\nb1\n");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assert(!/changed on disk/.test(undo.stderr), undo.stderr);
    assertEquals(await Deno.readTextFile(at(sandbox, "b.txt")), "b0\n");
  }, { onRequest: () => void requests++ });
});

Deno.test("killed after a write landed, before its result was stored: undo puts it back", async () => {
  // The run's first prompt made the session; the kill is placed by hand in the
  // store: the write's journal entry and its bytes on disk, nothing after.
  const script: MockTurn[] = [{ text: "hello" }];
  await withMockSandbox(script, async (sandbox) => {
    await seed(sandbox);
    assertEquals((await runSkiff(RUN, sandbox)).code, 0);
    const store = openStore(sandbox.dataDir);
    try {
      const session = store.latestSession(sandbox.workspace)!;
      const ledger = undoLedger(store, session.id);
      ledger.beginPrompt(2);
      const file = at(sandbox, "a.txt");
      const after = new TextEncoder().encode("a1\n");
      await ledger.snapshot(file, new TextEncoder().encode("a0\n"), after);
      await Deno.writeFile(file, after);
      // Killed here: no tool result, no read ledger saved, no after-state.
    } finally {
      store.close();
    }
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertEquals(await Deno.readTextFile(at(sandbox, "a.txt")), "a0\n");
  });
});

Deno.test("a second undo after a killed one finishes, naming no file it had put back", async () => {
  const script: MockTurn[] = [
    { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }] },
    {
      toolCalls: [
        { name: "write", arguments: { file_path: "a.txt", content: "a1\n" } },
        { name: "write", arguments: { file_path: "c.txt", content: "c1\n" } },
      ],
    },
    { text: "done" },
  ];
  await withMockSandbox(script, async (sandbox) => {
    await seed(sandbox);
    assertEquals((await runSkiff(RUN, sandbox)).code, 0);
    // What an undo killed after its first file leaves: that file back, the store untouched.
    await Deno.writeTextFile(at(sandbox, "a.txt"), "a0\n");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertEquals(undo.stderr, "");
    assertMatch(undo.stdout, /1 file\(s\) put back, 1 already as they were, 0 refused/);
    assertEquals(await exists(at(sandbox, "c.txt")), false);
  });
});

Deno.test("skiff undo of a prompt that left every file as it was says there was nothing to undo", async () => {
  const script: MockTurn[] = [
    { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }] },
    { toolCalls: [{ name: "write", arguments: { file_path: "a.txt", content: "a1\n" } }] },
    { toolCalls: [{ name: "write", arguments: { file_path: "a.txt", content: "a0\n" } }] },
    { text: "done" },
  ];
  await withMockSandbox(script, async (sandbox) => {
    await seed(sandbox);
    assertEquals((await runSkiff(RUN, sandbox)).code, 0);
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertMatch(
      undo.stdout,
      /^Nothing to undo in prompt 1 of ses_\w+: its 1 file\(s\) are already/,
    );
    assert(!/put back/.test(undo.stdout), undo.stdout);
  });
});

Deno.test("skiff's leftover temporary files are swept; nothing else of that look is", async () => {
  const script: MockTurn[] = [
    { toolCalls: [{ name: "write", arguments: { file_path: "sub/c.txt", content: "c\n" } }] },
    { text: "done" },
  ];
  await withMockSandbox(script, async (sandbox) => {
    assertEquals((await runSkiff(RUN, sandbox)).code, 0);
    const outside = path.join(sandbox.root, "outside");
    await Deno.mkdir(outside);
    await Deno.writeTextFile(path.join(outside, "target.txt"), "not skiff's\n");
    const left = at(sandbox, "sub/.c.txt.skiff-0a1b2c3d.tmp");
    await Deno.writeTextFile(left, "half a write");
    // Names skiff never makes, a folder and a link of its pattern: all stay.
    const kept = ["sub/.c.txt.skiff-zzzzzzzz.tmp", "sub/c.txt.skiff-0a1b2c3d.tmp"];
    for (const name of kept) await Deno.writeTextFile(at(sandbox, name), "someone's\n");
    await Deno.mkdir(at(sandbox, "sub/.d.skiff-0a1b2c3e.tmp"));
    await Deno.symlink(path.join(outside, "target.txt"), at(sandbox, "sub/.e.skiff-0a1b2c3f.tmp"));
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertMatch(undo.stdout, /removed {2}.*\.c\.txt\.skiff-0a1b2c3d\.tmp \(a temporary file/);
    assertEquals(await exists(left), false);
    for (const name of kept) assert(await exists(at(sandbox, name)), name);
    assert((await Deno.lstat(at(sandbox, "sub/.d.skiff-0a1b2c3e.tmp"))).isDirectory);
    assert((await Deno.lstat(at(sandbox, "sub/.e.skiff-0a1b2c3f.tmp"))).isSymlink);
    assertEquals(await Deno.readTextFile(path.join(outside, "target.txt")), "not skiff's\n");
  });
});
