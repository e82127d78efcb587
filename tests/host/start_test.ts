/**
 * The engine as every front end gets it (src/host/start.ts `hostEngine`):
 * what a plan run proposed is written by the host, whichever front end ran
 * it. Its session hold is tested in session_hold_test.ts.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { hostEngine } from "../../src/host/start.ts";
import type { EngineHandle } from "../../src/engine/handle.ts";
import { measureProposals, readDoneChecks } from "../../src/engine/verify/done_criteria.ts";
import { currentRunOwner } from "../../src/store/run_owner.ts";
import { testSpec } from "../engine/_spec.ts";

const ran = (exitCode: number | null, output = "") => ({ exitCode, output });

Deno.test("hostEngine: the host writes what a plan run proposed, whichever front end ran it", async () => {
  const workspace = await Deno.makeTempDir();
  try {
    const done = await measureProposals(
      [{ name: "t", command: "t", why: "w" }],
      "ses_plan",
      () => Promise.resolve(ran(1)),
    );
    const results = [
      { outcome: "completed" as const, exitCode: 0, sessionId: "ses_plan", text: "", done },
      { outcome: "completed" as const, exitCode: 0, sessionId: "ses_build", text: "" },
    ];
    const standIn: EngineHandle = {
      open: () => Promise.resolve("ses_plan"),
      run: () => Promise.resolve(results.shift()!),
      runTool: () => Promise.reject(new Error("unused")),
      abort: () => {},
      close: () => Promise.resolve(),
    };
    const engine = hostEngine(standIn, { ...testSpec({ workspace }), run: currentRunOwner() });
    const exitCodes = {
      completed: 0,
      denied: 3,
      limit: 5,
      interrupted: 130,
      provider: 4,
      failed: 1,
    };
    const planned = await engine.run({ prompt: "plan", exitCodes });
    assertEquals(planned.doneFile, path.join(workspace, ".skiff", "done.json"));
    assertEquals(readDoneChecks(workspace), [
      { name: "t", command: "t", exitCode: 0, fromProject: true },
    ]);
    const built = await engine.run({ prompt: "build", exitCodes });
    assertEquals(built.doneFile, undefined, "a run that proposed nothing writes nothing");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
