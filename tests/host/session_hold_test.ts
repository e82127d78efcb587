/**
 * The session hold around an engine: a session another live run holds is
 * waited for, taken when that run lets go, or refused with the holder named;
 * closing lets go of every session the run holds.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { hostEngine } from "../../src/host/start.ts";
import type { EngineHandle, SessionSelector } from "../../src/engine/handle.ts";
import { UsageError } from "../../src/cli/exit_codes.ts";
import { openStore } from "../../src/store/store.ts";
import { currentRunOwner } from "../../src/store/run_owner.ts";
import { testSpec } from "../engine/_spec.ts";

/** An engine that only records what it was asked to open. */
function fakeEngine(opened: SessionSelector[]): EngineHandle {
  return {
    open: (selector) => {
      opened.push(selector);
      return Promise.resolve(selector.sessionId ?? "new");
    },
    run: () => Promise.reject(new Error("not used")),
    runTool: () => Promise.reject(new Error("not used")),
    abort: () => {},
    close: () => Promise.resolve(),
  };
}

async function withHeldSession(
  work: (dataDir: string, sessionId: string, holderRun: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-hold-" }));
  try {
    const store = openStore(`${root}/data`);
    // Held by a run of this very process: alive by /proc, however long the test takes.
    const holder = currentRunOwner();
    const session = store.createSession({ workspace: root, model: "m", agent: "build", holder });
    store.close();
    await work(`${root}/data`, session.id, holder.run_id);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("session hold: a run waits for a held session and takes it once the holder lets go", async () => {
  await withHeldSession(async (dataDir, sessionId, holderRun) => {
    const opened: SessionSelector[] = [];
    const run = currentRunOwner();
    const spec = { ...testSpec({ dataDir, workspace: dataDir.slice(0, -5) }), run };
    let naps = 0;
    const engine = hostEngine(fakeEngine(opened), spec, {
      sleep: () => {
        naps++;
        // The other run ends while this one waits.
        if (naps === 5) {
          const store = openStore(dataDir);
          store.locks.release(holderRun);
          store.close();
        }
        return Promise.resolve();
      },
    });
    assertEquals(await engine.open({ continueLatest: true }), sessionId);
    assertEquals(naps, 5);
    assertEquals(opened, [{ sessionId }], "the engine opens the session that was claimed");
    await engine.close();
    const store = openStore(dataDir);
    assertEquals(store.getSession(sessionId)?.status, "stopped", "closed without an outcome");
    assertEquals(store.locks.claim(sessionId, currentRunOwner()).kind, "claimed", "let go");
    store.close();
  });
});

Deno.test("session hold: a session held past the wait is refused, naming the run that holds it", async () => {
  await withHeldSession(async (dataDir, sessionId, holderRun) => {
    const opened: SessionSelector[] = [];
    const spec = {
      ...testSpec({ dataDir, workspace: dataDir.slice(0, -5) }),
      run: currentRunOwner(),
    };
    let waited = 0;
    const engine = hostEngine(fakeEngine(opened), spec, {
      waitMs: 1000,
      sleep: (ms) => {
        waited += ms;
        return Promise.resolve();
      },
    });
    const error = await assertRejects(
      () => engine.open({ sessionId: sessionId.slice(0, 10) }),
      UsageError,
    );
    assertStringIncludes(error.message, `session ${sessionId} is being written by another`);
    assertStringIncludes(error.message, `(${holderRun}, process ${Deno.pid}`);
    assertEquals(waited, 1000);
    assertEquals(opened, [], "the engine never read the session");
    await engine.close();
    const store = openStore(dataDir);
    assert(store.locks.claim(sessionId, currentRunOwner()).kind === "held", "still the holder's");
    store.close();
  });
});

Deno.test("session hold: a new session is held while open, and let go when the engine closes", async () => {
  const { withSpecRoot, toolSpecIn } = await import("../engine/_spec.ts");
  const { startInProcess } = await import("../../src/engine/handle.ts");
  await withSpecRoot(async (root) => {
    const run = currentRunOwner();
    const spec = { ...toolSpecIn(root), run };
    const io = { event: () => {}, ask: () => Promise.resolve("deny" as const) };
    const engine = hostEngine(await startInProcess(spec, io), spec);
    const sessionId = await engine.open({});
    const store = openStore(spec.dataDir);
    try {
      assertEquals(store.locks.heldBy(run.run_id), [sessionId], "held from its creation");
      await engine.close();
      assertEquals(store.locks.heldBy(run.run_id), [], "let go at the end");
      assertEquals(store.locks.claim(sessionId, currentRunOwner()).kind, "claimed");
    } finally {
      store.close();
    }
  });
});
