/**
 * Engine Workers kept across batch tasks (src/host/engine_pool.ts): a task in
 * a Worker that already ran another keeps nothing of it (read-before-edit
 * state, "always" answers, events), a Worker serves only the very same
 * permissions, at most `max` are up, and an aborted or crashed Worker is not
 * used again.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { EngineWorkers, permissionKey } from "../../src/host/engine_pool.ts";
import { permissionsFor } from "../../src/host/worker_client.ts";
import type { EngineIO, EngineSpec } from "../../src/engine/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import type { ApprovalAnswer } from "../../src/permission/broker.ts";
import { testSpec, toolSpecIn, withSpecRoot } from "../engine/_spec.ts";

/** Fails the test instead of hanging it. */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A root with work/, other/, data/ and config/ folders, removed after `body`. */
const withRoot = (body: (root: string) => Promise<void>) => withSpecRoot(body, ["other"]);
const specIn = toolSpecIn;

/** An EngineIO that keeps the events it gets and answers every question with `answer`. */
function recordingIO(answer: ApprovalAnswer = "deny") {
  const events: SkiffEvent[] = [];
  let asked = 0;
  const io: EngineIO = {
    event: (event) => events.push(event),
    ask: () => {
      asked++;
      return Promise.resolve(answer);
    },
  };
  return { io, events, asked: () => asked };
}

// The first Worker of a test file is type-checked under `deno test` (tens of seconds under load).
const FIRST_OPEN_MS = 180_000;
const STEP_MS = 30_000;

Deno.test("permissionKey: the same permissions in another order match, other folders do not", () => {
  const spec = testSpec({ workspace: "/w/a", dataDir: "/d", configDir: "/c" });
  const permissions = permissionsFor(spec);
  const reordered = Object.fromEntries(
    Object.entries(permissions).reverse().map((
      [name, value],
    ) => [name, Array.isArray(value) ? [...value].reverse() : value]),
  ) as Deno.PermissionOptionsObject;
  assertEquals(permissionKey(reordered), permissionKey(permissions));
  assert(
    permissionKey(permissionsFor({ ...spec, workspace: "/w/b" })) !== permissionKey(permissions),
  );
  assert(
    permissionKey(permissionsFor({ ...spec, sandbox: { ...spec.sandbox, mode: "read-only" } })) !==
      permissionKey(permissions),
  );
});

Deno.test("a reused engine Worker: the second task must read a file itself before editing it, and sees only its own events", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/work/notes.txt`, "alpha\n");
    const workers = new EngineWorkers(2);
    try {
      const first = recordingIO();
      const a = workers.startEngine(specIn(root, { title: "task a" }), first.io);
      const sessionA = await within(FIRST_OPEN_MS, a.open({}), "open A");
      const read = await within(STEP_MS, a.runTool("read", { file_path: "notes.txt" }), "read A");
      assertEquals(read.ok, true, JSON.stringify(read.error));
      // A may edit what it read: the refusal below is about B's own state, not the file.
      await within(STEP_MS, a.close(), "close A");

      const second = recordingIO();
      const b = workers.startEngine(specIn(root, { title: "task b" }), second.io);
      const sessionB = await within(STEP_MS, b.open({}), "open B");
      assertEquals(workers.sessionsPerWorker, [2], "B ran in A's Worker");
      assert(sessionB !== sessionA, "B has a session of its own");
      const edit = (task: typeof b) =>
        task.runTool("edit", { file_path: "notes.txt", old_string: "alpha", new_string: "beta" });
      const refused = await within(STEP_MS, edit(b), "edit B");
      assertEquals(refused.ok, false);
      assertStringIncludes(JSON.stringify(refused.error), "has not been read in this session");
      assertEquals(await Deno.readTextFile(`${root}/work/notes.txt`), "alpha\n");
      await within(STEP_MS, b.runTool("read", { file_path: "notes.txt" }), "read B");
      const edited = await within(STEP_MS, edit(b), "edit B after its read");
      assertEquals(edited.ok, true, JSON.stringify(edited.error));
      await within(STEP_MS, b.close(), "close B");

      assert(first.events.length > 0 && second.events.length > 0);
      assertEquals([...new Set(first.events.map((event) => event.session_id))], [sessionA]);
      assertEquals([...new Set(second.events.map((event) => event.session_id))], [sessionB]);
    } finally {
      workers.close();
    }
  });
});

Deno.test('a reused engine Worker: an "always" answered in one task is asked again in the next', async () => {
  await withRoot(async (root) => {
    // Every write asks a person (interactive, the rule "ask").
    const asking = (title: string) =>
      specIn(root, {
        title,
        interactive: true,
        flags: { allow: [], ask: ["edit"], deny: [], yes: false },
      });
    const workers = new EngineWorkers(1);
    try {
      const first = recordingIO("always");
      const a = workers.startEngine(asking("task a"), first.io);
      await within(FIRST_OPEN_MS, a.open({}), "open A");
      // "always" approves writing this file for the rest of the session.
      for (const content of ["a\n", "aa\n"]) {
        const result = await within(
          STEP_MS,
          a.runTool("write", { file_path: "shared.txt", content }),
          `write ${content.trim()}`,
        );
        assertEquals(result.ok, true, JSON.stringify(result.error));
      }
      assertEquals(first.asked(), 1, "the always answer held for the rest of A");
      await within(STEP_MS, a.close(), "close A");

      const second = recordingIO("deny");
      const b = workers.startEngine(asking("task b"), second.io);
      await within(STEP_MS, b.open({}), "open B");
      assertEquals(workers.sessionsPerWorker, [2], "B ran in A's Worker");
      await within(STEP_MS, b.runTool("read", { file_path: "shared.txt" }), "read B");
      const result = await within(
        STEP_MS,
        b.runTool("write", { file_path: "shared.txt", content: "b\n" }),
        "write B",
      );
      assertEquals(second.asked(), 1, "B was asked itself");
      assertEquals(result.ok, false, "B's own answer (deny) decided");
      assertEquals(await Deno.readTextFile(`${root}/work/shared.txt`), "aa\n");
      await within(STEP_MS, b.close(), "close B");
    } finally {
      workers.close();
    }
  });
});

Deno.test("engine Workers: another permission set starts its own Worker, never more than max", async () => {
  await withRoot(async (root) => {
    const workers = new EngineWorkers(1);
    try {
      const run = async (spec: EngineSpec) => {
        const engine = workers.startEngine(spec, recordingIO().io);
        await within(FIRST_OPEN_MS, engine.open({}), "open");
        await within(STEP_MS, engine.close(), "close");
      };
      await run(specIn(root));
      await run(specIn(root));
      assertEquals(workers.sessionsPerWorker, [2]);
      // Another workspace: other Deno permissions, so not A's Worker; with max 1, A's is ended.
      await run(specIn(root, { workspace: `${root}/other` }));
      assertEquals(workers.sessionsPerWorker, [1]);
    } finally {
      workers.close();
    }
  });
});

Deno.test("engine Workers: a Worker whose task was aborted is not used again", async () => {
  await withRoot(async (root) => {
    const workers = new EngineWorkers(2);
    try {
      const a = workers.startEngine(specIn(root), recordingIO().io);
      await within(FIRST_OPEN_MS, a.open({}), "open A");
      a.abort();
      await within(STEP_MS, a.close(), "close A");
      assertEquals(workers.sessionsPerWorker, [], "the aborted task's Worker was ended");
      const b = workers.startEngine(specIn(root), recordingIO().io);
      await within(STEP_MS * 4, b.open({}), "open B");
      await within(STEP_MS, b.close(), "close B");
      assertEquals(workers.sessionsPerWorker, [1], "B started a Worker of its own");
    } finally {
      workers.close();
    }
  });
});

Deno.test("engine Workers: a crashed Worker fails its task and is not used again", async () => {
  await withRoot(async (root) => {
    const workers = new EngineWorkers(2, {
      workerModule: new URL("../engine/fixtures/crashing_worker.ts", import.meta.url),
    });
    try {
      const engine = workers.startEngine(specIn(root), recordingIO().io);
      const error = await assertRejects(() => within(STEP_MS * 2, engine.open({}), "open"));
      assertStringIncludes(String(error), "the session engine crashed");
      await within(STEP_MS, engine.close(), "close");
      assertEquals(workers.sessionsPerWorker, []);
    } finally {
      workers.close();
    }
  });
});

Deno.test("engine Workers: an event of a closed session does not reach the next task", async () => {
  await withRoot(async (root) => {
    const workers = new EngineWorkers(1, {
      workerModule: new URL("../engine/fixtures/late_event_worker.ts", import.meta.url),
    });
    try {
      const first = recordingIO();
      const a = workers.startEngine(specIn(root), first.io);
      assertEquals(await within(STEP_MS * 2, a.open({}), "open A"), "session-1");
      await within(STEP_MS, a.close(), "close A");
      const second = recordingIO();
      const b = workers.startEngine(specIn(root), second.io);
      assertEquals(await within(STEP_MS, b.open({}), "open B"), "session-2");
      await within(STEP_MS, b.close(), "close B");
      assertEquals(workers.sessionsPerWorker, [2]);
      assertEquals(first.events.map((event) => event.session_id), ["session-1"]);
      assertEquals(second.events.map((event) => event.session_id), ["session-2"]);
    } finally {
      workers.close();
    }
  });
});
