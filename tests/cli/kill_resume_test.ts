/**
 * kill -9 in the middle of a long session (at random turns, and while the
 * model is writing a compaction's summary), then `skiff run --continue`: the
 * session opens, every message stored before the kill is still there as it
 * was (so nothing before the last completed step is lost), the resumed run
 * finishes inside the window, and SQLite's integrity check is ok. Every wait
 * is on observable state (requests the mock received, the summary request
 * arriving), never a fixed sleep.
 */
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff, type Sandbox, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import { LONG_CONFIG, LONG_TASK, LongSession } from "../support/long_session.ts";
import { openStore } from "../../src/store/store.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";
import type { HistoryMessage } from "../../src/store/types.ts";

const TURNS = 70;

/** Resolves once `ready()` holds; fails if skiff exits first or nothing happens for 3 minutes. */
async function until(ready: () => boolean, child: Deno.ChildProcess, what: string) {
  let exited: Deno.CommandStatus | undefined;
  child.status.then((status) => (exited = status));
  const giveUp = Date.now() + 180_000;
  while (!ready()) {
    if (exited) throw new Error(`skiff exited (${exited.code}) before ${what}`);
    if (Date.now() > giveUp) throw new Error(`waited 3 minutes for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function stored(sandbox: Sandbox): { id: string; messages: HistoryMessage[] } {
  const store = openStore(sandbox.dataDir);
  try {
    const session = store.latestSession(sandbox.workspace);
    assert(session, "the killed run left its session");
    return { id: session.id, messages: store.loadHistory(session.id) };
  } finally {
    store.close();
  }
}

function integrity(sandbox: Sandbox): string {
  const db = new DatabaseSync(path.join(sandbox.dataDir, DATABASE_FILE));
  try {
    return String(db.prepare("PRAGMA integrity_check").get()?.integrity_check);
  } finally {
    db.close();
  }
}

/** The steps whose answer and tool result are stored ("Step n: …" texts). */
function stepsStored(messages: HistoryMessage[]): Set<number> {
  const steps = new Set<number>();
  for (const message of messages) {
    for (const part of message.parts as { type: string; text?: string }[]) {
      const match = part.type === "text" ? part.text?.match(/^Step (\d+):/) : null;
      if (match) steps.add(Number(match[1]));
    }
  }
  return steps;
}

async function killAndResume(
  session: LongSession,
  killWhen: (sandbox: Sandbox, child: Deno.ChildProcess) => Promise<void>,
) {
  await withMockSandbox([], async (sandbox, mock) => {
    await LongSession.prepare(sandbox.workspace);
    await Deno.writeTextFile(`${sandbox.configDir}/config.json`, JSON.stringify(LONG_CONFIG));
    const child = spawnSkiff(["run", "--json", "-y", LONG_TASK], sandbox);
    // Read as it comes, so a full pipe never holds skiff back.
    const drained = Promise.all([child.stdout, child.stderr].map((s) => new Response(s).text()));
    await killWhen(sandbox, child);
    child.kill("SIGKILL");
    const status = await child.status;
    assertEquals(status.signal, "SIGKILL");
    await drained;
    const answered = session.arrivals.length;

    assertEquals(integrity(sandbox), "ok");
    const before = stored(sandbox);
    // A request for step n+1 arrives only after step n's answer and result are stored.
    const steps = stepsStored(before.messages);
    for (let step = 1; step < answered; step++) assert(steps.has(step), `step ${step} kept`);

    const resumed = await runSkiff(["run", "--json", "-y", "--continue", "Go on."], sandbox);
    assertEquals(resumed.code, 0, resumed.stderr.slice(-2000));
    const after = stored(sandbox);
    assertEquals(after.id, before.id, "the same session went on");
    assertEquals(after.messages.slice(0, before.messages.length), before.messages);
    assert(after.messages.length > before.messages.length, "the resumed run was stored");
    assertEquals(session.problems, [], `requests: ${mock.requests.length}`);
    assertEquals(integrity(sandbox), "ok");
  }, { respond: session.respond });
}

Deno.test("kill -9 at random turns of a long session, then --continue: the session opens, nothing stored is lost, integrity ok", async () => {
  const points = [3 + Math.floor(Math.random() * 30), 35 + Math.floor(Math.random() * 30)];
  console.log(`killed after request ${points.join(" and ")} of a ${TURNS}-turn session`);
  for (const point of points) {
    const session = new LongSession({ turns: TURNS });
    await killAndResume(
      session,
      (_sandbox, child) => until(() => session.arrivals.length >= point, child, `request ${point}`),
    );
  }
});

Deno.test("kill -9 while the model writes a compaction's summary, then --continue: nothing lost, the resumed run compacts within the window", async () => {
  const session = new LongSession({ turns: TURNS, hangOnSummary: 1 });
  let arrived = false;
  session.hanging.then(() => (arrived = true));
  await killAndResume(session, async (_sandbox, child) => {
    await until(() => arrived, child, "the summary request");
    assertEquals(session.summaries, 1);
  });
  assert(session.summaries >= 2, "the resumed run summarised again");
});
