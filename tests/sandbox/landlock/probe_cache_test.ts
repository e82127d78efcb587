/**
 * The Landlock probe's "works" is kept in the data folder under a key of the
 * environment: a second start in the same environment runs no probe process,
 * a changed key, a corrupt cache and `skiff doctor` probe again, and a wrong
 * cached "works" never runs a command unconfined.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "../../support/assert.ts";
import { MAIN, makeSandbox } from "../../support/cli.ts";
import { probeSandboxes, type ProbeScope } from "../../../src/sandbox/choose.ts";
import {
  LANDLOCK_PROBE_CACHE_FILE,
  type LandlockProbeCache,
  readCachedLandlockProbe,
} from "../../../src/sandbox/landlock/probe_cache.ts";
import { landlockProbeKey } from "../../../src/sandbox/landlock/probe_key.ts";

/** Probes as a start where bubblewrap does not work; counts the Landlock probes. */
async function start(
  cache: LandlockProbeCache,
  answer: number | string = 7,
  scope: ProbeScope = "auto",
) {
  let probes = 0;
  const found = await probeSandboxes(
    "linux",
    () => Promise.resolve(false),
    () => {
      probes++;
      return Promise.resolve(answer);
    },
    scope,
    cache,
  );
  return { found, probes };
}

async function withCache(work: (cache: LandlockProbeCache, file: string) => Promise<void>) {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-probe-cache-" });
  try {
    await work({ dataDir, key: "env-1" }, path.join(dataDir, LANDLOCK_PROBE_CACHE_FILE));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("probe cache: a second start in the same environment runs no Landlock probe", async () => {
  await withCache(async (cache, file) => {
    const first = await start(cache);
    assertEquals(first.probes, 1);
    assertEquals(first.found.landlock, 7);
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600, "readable only by the user");
    const second = await start(cache);
    assertEquals(second.probes, 0);
    assertEquals(second.found.landlock, 7);
  });
});

Deno.test("probe cache: a changed key probes again and keeps the new answer", async () => {
  await withCache(async (cache) => {
    await start(cache, 7);
    const changed = await start({ ...cache, key: "env-2" }, 4);
    assertEquals(changed.probes, 1);
    assertEquals(changed.found.landlock, 4);
    assertEquals(readCachedLandlockProbe({ ...cache, key: "env-2" }), 4);
    assertEquals(readCachedLandlockProbe(cache), undefined, "the old key's answer is gone");
  });
});

Deno.test("probe cache: a corrupt, group-readable or wrongly typed cache probes again", async () => {
  await withCache(async (cache, file) => {
    for (
      const [text, mode] of [
        ["{not json", 0o600],
        [JSON.stringify({ version: 1, key: "env-1", abi: 7 }), 0o644],
        [JSON.stringify({ version: 1, key: "env-1", abi: "7" }), 0o600],
        [JSON.stringify({ version: 1, key: "env-1", abi: 0 }), 0o600],
        [JSON.stringify({ version: 2, key: "env-1", abi: 7 }), 0o600],
      ] as const
    ) {
      await Deno.writeTextFile(file, text);
      await Deno.chmod(file, mode);
      const { probes, found } = await start(cache, 6);
      assertEquals(probes, 1, `re-probes after ${text} (mode ${mode.toString(8)})`);
      assertEquals(found.landlock, 6);
      await Deno.remove(file);
    }
    await Deno.mkdir(file);
    assertEquals((await start(cache, 6)).probes, 1, "a folder in the cache's place re-probes");
  });
});

Deno.test("probe cache: doctor's scope always probes and refreshes what starts reuse", async () => {
  await withCache(async (cache) => {
    await start(cache, 7);
    const doctor = await start(cache, 5, "all");
    assertEquals(doctor.probes, 1, "doctor probes though an answer is cached");
    assertEquals(doctor.found.landlock, 5);
    const next = await start(cache, 7);
    assertEquals(next.probes, 0);
    assertEquals(next.found.landlock, 5, "the start reuses doctor's fresh answer");
  });
});

Deno.test("probe cache: a 'does not work' is never kept, and removes the kept answer", async () => {
  await withCache(async (cache, file) => {
    const failed = await start(cache, "Landlock is not supported by this kernel");
    assertEquals(failed.found.landlock, null);
    assertEquals(failed.found.reasons?.landlock, "Landlock is not supported by this kernel");
    assertEquals((await start(cache, 7)).probes, 1, "a failure does not spare the next probe");
    // doctor finds it broken now: the kept "works" goes, so no start trusts it.
    await start(cache, "landlock_create_ruleset failed (errno 1)", "all");
    await Deno.stat(file).then(() => assert(false, "the kept answer was removed"), () => {});
    assertEquals((await start(cache, 7)).probes, 1);
  });
});

Deno.test("probe key: stable in one environment; another mount namespace or no /proc rights has none of it", async () => {
  const here = landlockProbeKey();
  assert(Deno.build.os !== "linux" || here !== undefined, "the key is readable with full rights");
  assertEquals(landlockProbeKey(), here);
  assertEquals(landlockProbeKey(false, "darwin"), undefined);
  const keyScript = `import { landlockProbeKey } from ${
    JSON.stringify(new URL("../../../src/sandbox/landlock/probe_key.ts", import.meta.url).href)
  }; console.log(landlockProbeKey() ?? "none");`;
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(script, keyScript);
  const keyIn = async (prefix: string[], permissions: string[]) => {
    const output = await new Deno.Command(prefix[0], {
      args: [...prefix.slice(1), Deno.execPath(), "run", "--no-prompt", ...permissions, script],
      stderr: "inherit",
    }).output();
    return new TextDecoder().decode(output.stdout).trim();
  };
  try {
    const denied = await keyIn(["env"], ["--allow-read=/tmp"]);
    assertEquals(denied, "none", "without full rights (Deno guards /proc): no key, no cache");
    if (!canUnshare) {
      console.warn(
        "!!! SKIPPED the mount-namespace half of this test: it needs root and unshare -m",
      );
      return;
    }
    assertEquals(await keyIn(["env"], ["-A"]), here, "another process here has the same key");
    const other = await keyIn(["unshare", "-m"], ["-A"]);
    assert(other !== "none" && other !== here, "another mount namespace has another key");
  } finally {
    await Deno.remove(script);
  }
});

// ---- end to end: skiff itself, bubblewrap hidden in a mount namespace ----

const canUnshare = Deno.uid() === 0 &&
  new Deno.Command("unshare", { args: ["-m", "true"], stderr: "null" }).outputSync().success;
const EXEC_STEP = fileURLToPath(new URL("../../../src/sandbox/landlock/exec.ts", import.meta.url));
const SANDBOX_DIR = path.dirname(EXEC_STEP);
const BWRAP_PATHS = ["/usr/bin/bwrap", "/usr/local/bin/bwrap"].filter((file) => {
  try {
    return Deno.statSync(file).isFile;
  } catch {
    return false;
  }
});
const landlockWorks = typeof (await probeSandboxes(Deno.build.os, undefined, undefined, "landlock"))
  .landlock === "number";
const e2eReady = canUnshare && landlockWorks;
if (!e2eReady) {
  console.warn(
    "\n!!! SKIPPED landlock_probe_cache_test end-to-end cases: they need root, `unshare -m` " +
      "(to hide bubblewrap and put a spy in place of the exec step) and a kernel with Landlock !!!\n",
  );
}

/**
 * Runs `script` (sh) in a new mount namespace where bubblewrap fails, the
 * real sandbox folder is also at `$REAL`, and `$SKIFF` runs skiff.
 */
async function inNamespace(
  root: string,
  env: Record<string, string>,
  cwd: string,
  script: string,
): Promise<string> {
  const real = path.join(root, "real-sandbox");
  await Deno.mkdir(real);
  const hideBwrap = BWRAP_PATHS.map((file) => `mount --bind /bin/false ${file}`).join(" && ");
  const output = await new Deno.Command("unshare", {
    args: [
      "-m",
      "sh",
      "-c",
      `set -e; ${hideBwrap || "true"}; mount --bind "${SANDBOX_DIR}" "${real}"; set +e; ${script}`,
    ],
    cwd,
    env: {
      ...env,
      REAL: real,
      SKIFF: `${Deno.execPath()} run --allow-all --unstable-worker-options --no-prompt ${MAIN}`,
    },
    clearEnv: true,
    stdin: "null",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return decode(output.stdout) + decode(output.stderr);
}

/** A step that notes each run (probe or command) in `marker`, then runs the real one. */
function spyStep(marker: string, real: string): string {
  return `export async function runStep(args: string[]): Promise<number> {\n` +
    `  const kind = JSON.parse(args[0] ?? "{}").probe ? "probe" : "command";\n` +
    `  Deno.writeTextFileSync(${JSON.stringify(marker)}, kind + "\\n", { append: true });\n` +
    `  const step = await import(${JSON.stringify(`file://${real}/exec.ts`)});\n` +
    `  return step.runStep(args);\n}\n`;
}

Deno.test({
  name:
    "e2e (bubblewrap hidden): the second start runs no probe; a changed key, a corrupt cache and skiff doctor probe again",
  ignore: !e2eReady,
  async fn() {
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    try {
      const marker = path.join(sandbox.root, "step-runs");
      const spy = path.join(sandbox.root, "spy_exec.ts");
      await Deno.writeTextFile(spy, spyStep(marker, path.join(sandbox.root, "real-sandbox")));
      const cache = path.join(sandbox.dataDir, LANDLOCK_PROBE_CACHE_FILE);
      const call = `$SKIFF tool bash --allow 'bash(echo *)' '{"command":"echo ran"}'`;
      const phase = (name: string) => `echo "== ${name}" >> "${marker}"`;
      const output = await inNamespace(
        sandbox.root,
        sandbox.env,
        sandbox.workspace,
        [
          `mount --bind "${spy}" "${EXEC_STEP}"`,
          phase("first"),
          call,
          phase("second"),
          call,
          // The step's file is part of the key: a changed program re-probes.
          phase("changed"),
          `touch -d '2001-01-01' "${spy}"`,
          call,
          phase("corrupt"),
          `printf '{broken' > "${cache}"`,
          call,
          phase("doctor"),
          "$SKIFF doctor >/dev/null 2>&1",
          phase("after-doctor"),
          call,
        ].join("\n"),
      );
      const runs = (await Deno.readTextFile(marker)).trim().split("== ").slice(1)
        .map((part) => part.trim().split("\n"));
      const byPhase = Object.fromEntries(runs.map(([name, ...kinds]) => [name, kinds]));
      assertEquals(byPhase.first, ["probe", "command"], output);
      assertEquals(byPhase.second, ["command"], "the second start ran no probe");
      assertEquals(byPhase.changed, ["probe", "command"], "a changed key probed again");
      assertEquals(byPhase.corrupt, ["probe", "command"], "a corrupt cache probed again");
      assertEquals(byPhase.doctor, ["probe"], "skiff doctor probed though the answer was cached");
      assertEquals(byPhase["after-doctor"], ["command"], "doctor's answer is reused");
      assertEquals(output.match(/"ok":true/g)?.length, 5, output);
    } finally {
      await sandbox.cleanup();
    }
  },
});

Deno.test({
  name: "e2e fail closed: a cached 'works' where the exec step cannot run leaves the command unrun",
  ignore: !e2eReady,
  async fn() {
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    try {
      const outside = path.join(sandbox.root, "outside.txt");
      const broken = path.join(sandbox.root, "broken_exec.ts");
      // The step is hidden: its module has no runStep, so it cannot restrict anything.
      await Deno.writeTextFile(broken, "export {};\n");
      const poison = `import { landlockProbeKey } from "file://${SANDBOX_DIR}/probe_key.ts";\n` +
        `import { writeCachedLandlockProbe } from "file://${SANDBOX_DIR}/probe_cache.ts";\n` +
        `const key = landlockProbeKey();\nif (!key) throw new Error("no key");\n` +
        `writeCachedLandlockProbe({ dataDir: "${sandbox.dataDir}", key }, 7);\n`;
      const output = await inNamespace(
        sandbox.root,
        sandbox.env,
        sandbox.workspace,
        [
          `mount --bind "${broken}" "${EXEC_STEP}"`,
          // The key as skiff will compute it here: a cached "works" that matches.
          `${Deno.execPath()} eval -A "$(cat <<EOF\n${poison}EOF\n)" && echo poisoned`,
          `$SKIFF tool bash --allow 'bash(echo *)' '{"command":"echo unconfined > ${outside}"}'`,
        ].join("\n"),
      );
      assert(output.includes("poisoned"), output);
      const kept = readCachedLandlockProbe({ dataDir: sandbox.dataDir, key: "x" });
      assertEquals(kept, undefined, "the poisoned entry is keyed, not a wildcard");
      await Deno.stat(outside).then(
        () => assert(false, `the command ran outside the sandbox: ${output}`),
        () => {},
      );
      const line = output.split("\n").find((text) => text.startsWith('{"tool":"bash"'));
      assert(line, output);
      const result = JSON.parse(line) as { output: string; metadata: { exitCode?: number } };
      assertEquals(result.metadata.exitCode, 1, "the step's failure is the command's: not 0");
      assert(result.output.includes("runStep is not a function"), "the step's error is shown");
    } finally {
      await sandbox.cleanup();
    }
  },
});
