/**
 * The bubblewrap probe's "works" is kept in the data folder under the
 * sandbox probes' key (src/sandbox/bwrap/probe_cache.ts): a second start in
 * the same environment runs no bubblewrap; a changed key, a bad file,
 * `skiff doctor` and a failure probe again; an entry naming any program but
 * the probe's own candidates is never taken.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../../support/assert.ts";
import { probeSandboxes, type ProbeScope } from "../../../src/sandbox/choose.ts";
import {
  BWRAP_PROBE_CACHE_FILE,
  readCachedBwrapProbe,
  writeCachedBwrapProbe,
} from "../../../src/sandbox/bwrap/probe_cache.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../../support/cli.ts";
import type { ProbeCache } from "../../../src/sandbox/pool/probe_cache.ts";
import { landlockProbeKey } from "../../../src/sandbox/landlock/probe_key.ts";

/** Probes as a start where `works` is the bubblewrap that runs; counts bubblewrap runs. */
async function start(
  cache: ProbeCache,
  works: string | null = "/usr/bin/bwrap",
  scope: ProbeScope = "auto",
) {
  const runs: string[] = [];
  const found = await probeSandboxes(
    "linux",
    (argv) => {
      runs.push(argv[0]);
      return Promise.resolve(argv[0] === works);
    },
    () => Promise.resolve("not probed in this test"),
    scope,
    cache,
  );
  return { found, runs };
}

async function withCache(work: (cache: ProbeCache, file: string) => Promise<void>) {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-bwrap-cache-" });
  try {
    await work({ dataDir, key: "env-1" }, path.join(dataDir, BWRAP_PROBE_CACHE_FILE));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("bwrap probe cache: a second start in the same environment runs no bubblewrap", async () => {
  await withCache(async (cache, file) => {
    const first = await start(cache);
    assertEquals(first.runs, ["/usr/bin/bwrap"]);
    assertEquals(first.found.bwrap, "/usr/bin/bwrap");
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600, "readable only by the user");
    const second = await start(cache);
    assertEquals(second.runs, []);
    assertEquals(second.found.bwrap, "/usr/bin/bwrap");
    assertEquals(second.found.reasons?.landlock, "not probed (bubblewrap works)");
    const forced = await start(cache, "/usr/bin/bwrap", "bwrap");
    assertEquals(forced.runs, [], "sandbox.backend 'bwrap' reuses it too");
  });
});

Deno.test("bwrap probe cache: a changed key, doctor's scope or a failure probes again", async () => {
  await withCache(async (cache, file) => {
    await start(cache);
    const changed = await start({ ...cache, key: "env-2" }, "/usr/local/bin/bwrap");
    assertEquals(changed.runs, ["/usr/bin/bwrap", "/usr/local/bin/bwrap"]);
    assertEquals(readCachedBwrapProbe({ ...cache, key: "env-2" }), "/usr/local/bin/bwrap");
    assertEquals(readCachedBwrapProbe(cache), undefined, "the old key's answer is gone");

    const doctor = await start({ ...cache, key: "env-2" }, "/usr/bin/bwrap", "all");
    assertEquals(doctor.runs, ["/usr/bin/bwrap"], "doctor probes though an answer is kept");
    assertEquals(readCachedBwrapProbe({ ...cache, key: "env-2" }), "/usr/bin/bwrap");

    // doctor finds none working now: the kept "works" goes, so no start trusts it.
    const broken = await start({ ...cache, key: "env-2" }, null, "all");
    assertEquals(broken.found.bwrap, null);
    await Deno.stat(file).then(() => assert(false, "the kept answer was removed"), () => {});
    assertEquals((await start({ ...cache, key: "env-2" }, null)).runs.length, 3, "never kept");
  });
});

Deno.test("bwrap probe cache: an entry naming another program, or a bad file, probes again", async () => {
  await withCache(async (cache, file) => {
    for (
      const [text, mode] of [
        [JSON.stringify({ version: 1, key: "env-1", bwrap: "/tmp/evil" }), 0o600],
        [JSON.stringify({ version: 1, key: "env-1", bwrap: "bwrap" }), 0o600],
        [JSON.stringify({ version: 1, key: "env-1", bwrap: "/usr/bin/bwrap" }), 0o640],
        [JSON.stringify({ version: 2, key: "env-1", bwrap: "/usr/bin/bwrap" }), 0o600],
        ["{not json", 0o600],
      ] as const
    ) {
      await Deno.writeTextFile(file, text);
      await Deno.chmod(file, mode);
      const { runs, found } = await start(cache, "/usr/local/bin/bwrap");
      assertEquals(
        runs,
        ["/usr/bin/bwrap", "/usr/local/bin/bwrap"],
        `${text} (${mode.toString(8)})`,
      );
      assertEquals(found.bwrap, "/usr/local/bin/bwrap");
      await Deno.remove(file);
    }
    // One found on PATH is not kept: PATH is not part of the key.
    const onPath = await start(cache, "bwrap");
    assertEquals(onPath.found.bwrap, "bwrap");
    await Deno.stat(file).then(() => assert(false, "a PATH bubblewrap was kept"), () => {});
  });
});

Deno.test("bwrap probe cache: sandbox.backend 'landlock' neither probes bubblewrap nor reads its entry", async () => {
  await withCache(async (cache) => {
    await start(cache);
    const landlock = await start(cache, "/usr/bin/bwrap", "landlock");
    assertEquals(landlock.runs, []);
    assertEquals(landlock.found.bwrap, null);
    assertEquals(readCachedBwrapProbe(cache), "/usr/bin/bwrap", "the kept answer stays");
  });
});

Deno.test("probe key: names each bubblewrap the probe tries by its file, and the user-namespace limits", () => {
  const key = landlockProbeKey();
  if (key === undefined) {
    console.warn(
      "bwrap_probe_cache_test: no probe key here (not Linux, or /proc closed): key check skipped",
    );
    return;
  }
  const parsed = JSON.parse(key) as { bwrap: string[]; userns: string[] };
  assertEquals(parsed.bwrap.length, 2);
  assert(parsed.bwrap[0].startsWith("/usr/bin/bwrap:"), parsed.bwrap[0]);
  assert(parsed.bwrap[1].startsWith("/usr/local/bin/bwrap:"), parsed.bwrap[1]);
  assertEquals(parsed.userns.length, 3);
});

Deno.test("e2e fail closed: a kept 'works' naming a bubblewrap that cannot run leaves the command unrun, and is dropped", async () => {
  const missing = "/usr/local/bin/bwrap";
  if (await Deno.stat(missing).then(() => true, () => false)) {
    console.warn(
      `bwrap_probe_cache_test: ${missing} exists here, so it cannot stand for a broken one: e2e skipped`,
    );
    return;
  }
  const key = landlockProbeKey();
  if (key === undefined) {
    console.warn(
      "bwrap_probe_cache_test: no probe key here (not Linux, or /proc closed): e2e skipped",
    );
    return;
  }
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  try {
    // The key as skiff computes it in this environment: the entry matches and is taken.
    await Deno.mkdir(sandbox.dataDir, { recursive: true });
    writeCachedBwrapProbe({ dataDir: sandbox.dataDir, key }, missing);
    assertEquals(readCachedBwrapProbe({ dataDir: sandbox.dataDir, key }), missing);
    const outside = path.join(sandbox.root, "outside.txt");
    const result = await runSkiff(
      [
        "tool",
        "bash",
        "--allow",
        "bash(echo *)",
        JSON.stringify({ command: `echo unconfined > ${outside}` }),
      ],
      sandbox,
    );
    await Deno.stat(outside).then(
      () => assert(false, `the command ran outside the sandbox: ${result.stdout}${result.stderr}`),
      () => {},
    );
    const line = parseJsonLines(result.stdout)[0] as {
      output: string;
      metadata: { exitCode?: number };
    };
    // The sandbox could not start, and says why; the command is not run without it.
    assertEquals(line.metadata.exitCode, 127, result.stdout);
    assert(line.output.includes(missing), result.stdout);
    // The kept answer is dropped: the next start probes again, and runs the command contained.
    assertEquals(readCachedBwrapProbe({ dataDir: sandbox.dataDir, key }), undefined);
    const next = await runSkiff(
      ["tool", "bash", "--allow", "bash(echo *)", JSON.stringify({ command: `echo contained` })],
      sandbox,
    );
    const nextLine = parseJsonLines(next.stdout)[0] as {
      output: string;
      metadata: { exitCode?: number };
    };
    assertEquals(nextLine.metadata.exitCode, 0, next.stdout + next.stderr);
    assert(nextLine.output.includes("contained"), next.stdout);
    assertEquals(readCachedBwrapProbe({ dataDir: sandbox.dataDir, key }), "/usr/bin/bwrap");
  } finally {
    await sandbox.cleanup();
  }
});
