/**
 * `skiff undo` after `skiff run` is killed with SIGKILL at a random point:
 * the workspace must come back exactly as it was before the prompt (every
 * file, its mode, no leftover temporary file), whatever the run had done.
 * The prompt (a scripted model on 127.0.0.1) reads a file, writes two, runs
 * a command that appends, deletes, makes folders and writes in steps, then
 * writes both files again. Some of the undos are killed too, and a second
 * undo must finish the job and exit 0.
 *
 * SKIFF_KILLS sets how many kills (default 20); SKIFF_KILL_SEED replays a
 * run (the seed is printed). Through the real CLI (SKIFF_BIN when set).
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { runSkiff, type Sandbox, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { processesHolding } from "../support/processes.ts";
import { seededRandom } from "../support/seeded_random.ts";
import { hasBwrap } from "../escape/e2e_support.ts";

const MARKER = "skiff-kill-loop-command";
const COMMAND = [
  "printf 'b1\\n' >> b.txt",
  "sleep 0.2",
  "rm del.txt",
  "mkdir -p made/deep",
  "printf 'x\\n' > made/deep/x.txt",
  "sleep 0.2",
  "printf 'c1\\n' > c.txt",
  "chmod 600 b.txt",
  `true ${MARKER}`,
].join("; ");

const write = (file: string, content: string) => ({
  name: "write",
  arguments: { file_path: file, content },
});

/** The turns spread over a second or two, so random kills land between and inside the steps. */
const SCRIPT: MockTurn[] = [
  { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }], delayMs: 50 },
  { toolCalls: [write("a.txt", "a1\n"), write("new.txt", "n1\n")], delayMs: 50 },
  { toolCalls: [{ name: "bash", arguments: { command: COMMAND } }], delayMs: 50 },
  { toolCalls: [write("a.txt", "a2\n"), write("new.txt", "n2\n")], delayMs: 50 },
  { text: "done", delayMs: 50 },
];

const START: Record<string, { content: string; mode: number }> = {
  "a.txt": { content: "a0\n", mode: 0o644 },
  "b.txt": { content: "b0\n", mode: 0o755 },
  // git keeps a file's executable bit only, so a command's deleted file comes back 644 or 755.
  "del.txt": { content: "gone soon\n", mode: 0o644 },
  "keep/k.txt": { content: "k\n", mode: 0o644 },
};

async function prepare(sandbox: Sandbox): Promise<void> {
  for (const [name, { content, mode }] of Object.entries(START)) {
    const file = path.join(sandbox.workspace, name);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    await Deno.writeTextFile(file, content);
    await Deno.chmod(file, mode);
  }
}

/** Every entry under the workspace: kind, mode and content, by relative path. */
function tree(root: string, prefix = ""): Record<string, string> {
  const found: Record<string, string> = {};
  for (
    const entry of [...Deno.readDirSync(path.join(root, prefix))].sort((a, b) =>
      a.name.localeCompare(b.name)
    )
  ) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    const full = path.join(root, relative);
    const info = Deno.lstatSync(full);
    if (info.isSymlink) found[relative] = `link -> ${Deno.readLinkSync(full)}`;
    else if (info.isDirectory) {
      found[relative] = "folder";
      Object.assign(found, tree(root, relative));
    } else {
      found[relative] = `file ${(info.mode! & 0o777).toString(8)} ${
        JSON.stringify(Deno.readTextFileSync(full))
      }`;
    }
  }
  return found;
}

function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn("WARNING: bubblewrap is missing: the kill loop runs commands with full access");
  return ["--sandbox", "full-access"];
}

const RUN = ["run", ...sandboxFlags(), "--allow", "bash(*)", "do the steps"];

/**
 * Waits (bounded) for what the killed run left behind to end: its command (what it writes is the
 * prompt's too), and every process naming the workspace (the sandbox, whose holder may not yet have
 * started the command's shell when the run was killed, and the run's git survey).
 */
async function leftoversGone(workspace: string): Promise<void> {
  const left = () => processesHolding(MARKER).length + processesHolding(workspace).length;
  for (let waited = 0; left() && waited < 10_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Spawns skiff with `args` and kills it `afterMs` after `start` resolves; answers whether it ended first. */
async function killAfter(
  args: string[],
  sandbox: Sandbox,
  start: Promise<void>,
  afterMs: number,
): Promise<{ ended: boolean; code: number }> {
  const child = spawnSkiff(args, sandbox);
  // Read to the end: a closed pipe would end skiff at its first line of output.
  void child.stdout.pipeTo(new WritableStream());
  void child.stderr.pipeTo(new WritableStream());
  let ended = false;
  const status = child.status.then((status) => {
    ended = true;
    return status;
  });
  await Promise.race([start, status]);
  await Promise.race([new Promise((resolve) => setTimeout(resolve, afterMs)), status]);
  let endedFirst = ended;
  if (!ended) {
    try {
      child.kill("SIGKILL");
    } catch (error) {
      // It exited just now: Deno knows before `status` has told this function.
      if (!(error instanceof TypeError) || !/already terminated/.test(error.message)) throw error;
      endedFirst = true;
    }
  }
  return { ended: endedFirst, code: (await status).code };
}

interface Timings {
  /** From the first model request to the run's exit. */
  run: number;
  /** One whole `skiff undo`. */
  undo: number;
}

/** One unkilled run and undo: the control, and how long each takes. */
async function control(): Promise<Timings> {
  let first = 0;
  let timings: Timings = { run: 0, undo: 0 };
  await withMockSandbox(SCRIPT, async (sandbox) => {
    await prepare(sandbox);
    const before = tree(sandbox.workspace);
    const run = await runSkiff(RUN, sandbox);
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const ran = Date.now() - first;
    assertEquals(tree(sandbox.workspace)["c.txt"], 'file 644 "c1\\n"', "the command ran");
    const started = Date.now();
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertEquals(tree(sandbox.workspace), before, "the unkilled control is undone whole");
    timings = { run: ran, undo: Date.now() - started };
  }, { onRequest: () => void (first ||= Date.now()) });
  return timings;
}

Deno.test("skiff undo after skiff run killed with SIGKILL at random points puts everything back", async () => {
  const kills = Number(Deno.env.get("SKIFF_KILLS") ?? 20);
  const seed = Number(Deno.env.get("SKIFF_KILL_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`kill loop: seed ${seed}, ${kills} kills (replay: SKIFF_KILL_SEED=${seed})`);
  const random = seededRandom(seed);
  const timings = await control();
  console.log(
    `kill loop: the unkilled run takes ${timings.run} ms from its first model request, undo ${timings.undo} ms`,
  );
  const failures: string[] = [];
  let killedUndos = 0;
  for (let kill = 0; kill < kills; kill++) {
    const runKillMs = Math.floor(random() * timings.run * 1.1);
    const undoKillMs = random() < 0.35 ? Math.floor(random() * timings.undo) : null;
    let requested!: () => void;
    const firstRequest = new Promise<void>((resolve) => (requested = resolve));
    await withMockSandbox(SCRIPT, async (sandbox) => {
      await prepare(sandbox);
      const before = tree(sandbox.workspace);
      const label = `kill ${kill + 1} (run killed ${runKillMs} ms after the first request` +
        (undoKillMs === null ? ")" : `, first undo killed at ${undoKillMs} ms)`);
      await killAfter(RUN, sandbox, firstRequest, runKillMs);
      await leftoversGone(sandbox.workspace);
      if (undoKillMs !== null) {
        const first = await killAfter(["undo"], sandbox, Promise.resolve(), undoKillMs);
        if (!first.ended) killedUndos++;
      }
      const undo = await runSkiff(["undo"], sandbox);
      // A kill before the session was made leaves nothing to undo.
      const noSession = undo.code === 2 && /no session in/.test(undo.stderr);
      if (undo.code !== 0 && !noSession) {
        failures.push(`${label}: undo exited ${undo.code}: ${undo.stdout}${undo.stderr}`);
        return;
      }
      const after = tree(sandbox.workspace);
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        // What undo said goes to the output; the failure itself stays one line, so the end of a
        // long CI log still shows which kill it was and what differs.
        console.log(`${label}: undo said:\n${undo.stdout}${undo.stderr}`);
        failures.push(
          `${label}: the workspace differs: ${JSON.stringify(difference(before, after))}`,
        );
      }
    }, { onRequest: () => requested() });
  }
  console.log(
    `kill loop: ${kills} kills of skiff run (${killedUndos} undos killed too), ` +
      `${failures.length} failed; seed ${seed}`,
  );
  assertEquals(failures, [], `seed ${seed}`);
});

function difference(before: Record<string, string>, after: Record<string, string>) {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => before[key] !== after[key]).map((key) => ({
    path: key,
    before: before[key] ?? null,
    after: after[key] ?? null,
  }));
}
