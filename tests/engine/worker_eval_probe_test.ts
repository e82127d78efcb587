/**
 * The sandbox probe (a short bubblewrap run, or the Landlock step) starts
 * when the engine starts, so it runs while the store and the session open
 * instead of inside the session's opening (docs/performance.md, Start-up),
 * and the first session chooses its launcher from that probe's answer.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type EngineModules, startInProcess } from "../../src/engine/handle.ts";
import { startSandboxProbe } from "../../src/engine/session_parts.ts";
import type { AvailableSandboxes } from "../../src/sandbox/choose.ts";
import type { EngineIO } from "../../src/engine/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import { toolSpecIn, withSpecRoot } from "./_spec.ts";

const withFolders = withSpecRoot;
const specIn = toolSpecIn;

Deno.test("the sandbox probe starts with the engine, before open(), and the session uses its answer", async () => {
  await withFolders(async (root) => {
    const steps: string[] = [];
    // A machine with no sandbox, as the stand-in probe reports it.
    const none: AvailableSandboxes = {
      bwrap: null,
      sandboxExec: null,
      landlock: null,
      reasons: { bwrap: "stand-in probe", landlock: "stand-in probe" },
    };
    const modules: EngineModules = {
      engine: async () => ({
        ...await import("../../src/engine/engine.ts"),
        startSandboxProbe: () => {
          steps.push("probe");
          return Promise.resolve(none);
        },
      }),
      provider: () => Promise.reject(new Error("no model in this test")),
    };
    const events: SkiffEvent[] = [];
    const io: EngineIO = {
      event: (event) => events.push(event),
      ask: () => Promise.resolve("deny"),
    };
    const handle = await startInProcess(specIn(root), io, modules);
    try {
      steps.push("open");
      await handle.open({});
      assertEquals(steps, ["probe", "open"]);
      // Without a sandbox a headless command is refused, and the session says why.
      const result = await handle.runTool("bash", { command: "echo hi" });
      assertEquals(result.ok, false);
      const warnings = events.filter((event) => event.type === "warning");
      assert(
        warnings.some((event) => JSON.stringify(event).includes("stand-in probe")),
        `expected a no-sandbox warning naming the probe's reason, got ${JSON.stringify(warnings)}`,
      );
    } finally {
      await handle.close();
    }
  });
});

Deno.test("startSandboxProbe: full-access probes nothing, other modes probe", async () => {
  await withFolders(async (root) => {
    const fullAccess = specIn(root, {
      sandbox: { mode: "full-access", network: true, addDirs: [], env: [] },
    });
    assertEquals(startSandboxProbe(fullAccess), undefined);
    const probe = startSandboxProbe(specIn(root));
    assert(probe !== undefined, "workspace-write must probe");
    const found = await probe;
    assert(
      "bwrap" in found && "sandboxExec" in found,
      `a probe's answer: ${JSON.stringify(found)}`,
    );
  });
});
