/**
 * The Landlock probe (a process running the exec step) runs only when it is
 * needed: bubblewrap does not work, the backend is forced to Landlock, or
 * `skiff doctor` asks for everything. A start where bubblewrap works spawns
 * none, shown end to end by a spy exec step that leaves a mark when it runs.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "../support/assert.ts";
import { MAIN, type Sandbox, withMockSandbox } from "../support/cli.ts";
import { probeSandboxes, type ProbeScope } from "../../src/sandbox/choose.ts";

/** Probes with fakes: which bwrap runs were tried and how often Landlock was probed. */
async function probeWith(scope: ProbeScope, bwrapWorks: boolean) {
  const bwrapRuns: string[][] = [];
  let landlockProbes = 0;
  const found = await probeSandboxes(
    "linux",
    (argv) => {
      bwrapRuns.push(argv);
      return Promise.resolve(bwrapWorks);
    },
    () => {
      landlockProbes++;
      return Promise.resolve(7);
    },
    scope,
  );
  return { found, bwrapRuns, landlockProbes };
}

Deno.test("probe scope auto: bubblewrap works, so Landlock is not probed", async () => {
  const { found, landlockProbes } = await probeWith("auto", true);
  assertEquals(landlockProbes, 0);
  assertEquals(found.bwrap, "/usr/bin/bwrap");
  assertEquals(found.landlock, undefined);
  assertEquals(found.reasons?.landlock, "not probed (bubblewrap works)");
});

Deno.test("probe scope auto: bubblewrap does not work, so Landlock is probed once", async () => {
  const { found, landlockProbes } = await probeWith("auto", false);
  assertEquals(landlockProbes, 1);
  assertEquals(found.bwrap, null);
  assertEquals(found.landlock, 7);
  assert(found.reasons?.bwrap?.includes("cannot create namespaces"), found.reasons?.bwrap);
});

Deno.test("probe scope landlock: forced Landlock is probed and bubblewrap is not run", async () => {
  const { found, bwrapRuns, landlockProbes } = await probeWith("landlock", true);
  assertEquals(bwrapRuns, []);
  assertEquals(landlockProbes, 1);
  assertEquals(found.landlock, 7);
});

Deno.test("probe scope bwrap: forced bubblewrap that fails keeps its reason, and no Landlock probe", async () => {
  const { found, landlockProbes } = await probeWith("bwrap", false);
  assertEquals(landlockProbes, 0);
  assert(found.reasons?.bwrap?.includes("cannot create namespaces"), found.reasons?.bwrap);
});

Deno.test("probe scope all (skiff doctor): both are probed even where bubblewrap works", async () => {
  const { found, landlockProbes } = await probeWith("all", true);
  assertEquals(landlockProbes, 1);
  assertEquals(found.bwrap, "/usr/bin/bwrap");
  assertEquals(found.landlock, 7);
});

const EXEC_STEP = fileURLToPath(new URL("../../src/sandbox/landlock/exec.ts", import.meta.url));
const bwrapWorks = (await probeSandboxes(Deno.build.os, undefined, null)).bwrap !== null;
const canSwapStep = Deno.uid() === 0 &&
  new Deno.Command("unshare", { args: ["-m", "true"], stderr: "null" }).outputSync().success;
if (!bwrapWorks || !canSwapStep) {
  console.warn(
    "\n!!! SKIPPED landlock_probe_scope_test end-to-end case: it needs working bubblewrap, root " +
      "and `unshare -m` (to put a spy in place of the exec step in a mount namespace) !!!\n",
  );
}

/**
 * skiff run in a mount namespace where the exec step is a spy that appends a
 * line to `marker` each time it runs; returns the marker's lines.
 */
async function runWithSpyStep(args: string[], sandbox: Sandbox): Promise<string[]> {
  const marker = path.join(sandbox.root, "exec-step-runs");
  const spy = path.join(sandbox.root, "spy_exec.ts");
  await Deno.writeTextFile(
    spy,
    `export function runStep(args: string[]): number {\n` +
      `  Deno.writeTextFileSync(${JSON.stringify(marker)}, "ran\\n", { append: true });\n` +
      `  return 1;\n}\n`,
  );
  const output = await new Deno.Command("unshare", {
    args: [
      "-m",
      "sh",
      "-c",
      `mount --bind "${spy}" "${EXEC_STEP}" && exec "$@"`,
      "sh",
      Deno.execPath(),
      "run",
      "--allow-all",
      "--unstable-worker-options",
      "--no-prompt",
      MAIN,
      ...args,
    ],
    cwd: sandbox.workspace,
    env: sandbox.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert(output.code === 0 || args.includes("landlock"), `skiff run failed: ${stderr}`);
  try {
    return (await Deno.readTextFile(marker)).split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

Deno.test({
  name: "e2e: a start where bubblewrap works spawns no Landlock probe; a forced Landlock does",
  ignore: !bwrapWorks || !canSwapStep,
  async fn() {
    await withMockSandbox([{ text: "hello" }, { text: "hello" }], async (sandbox) => {
      assertEquals(await runWithSpyStep(["run", "say hello"], sandbox), []);
      // The control: the spy is really in place, and a forced Landlock start probes.
      const forced = await runWithSpyStep(
        ["run", "--sandbox-backend", "landlock", "say hello"],
        sandbox,
      );
      assert(forced.length >= 1, "the forced Landlock start ran the exec step (its probe)");
    });
  },
});
