/**
 * The terminal side of the engine Worker: when the Worker dies, every waiting
 * and later request fails with a message instead of leaving the CLI hanging.
 */
import { assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { engineNetHosts, permissionsFor, startInWorker } from "../../src/host/worker_client.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import { testSpec } from "../engine/_spec.ts";
import { startConfinedWriter } from "../../src/sandbox/writer/confined_writer.ts";
import { OUTCOME_EXIT_CODES } from "../../src/cli/exit_codes.ts";
import { loadFrontmatterParser } from "../../src/definitions/frontmatter.ts";

// A spec without resolvedAgents has its agent files parsed here: the parser must be loaded.
await loadFrontmatterParser();

function spec(dataDir: string): EngineSpec {
  return testSpec({ workspace: dataDir, dataDir, configDir: dataDir });
}

/** Fails the test instead of hanging it. */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

Deno.test("a crashed engine Worker fails the request and close() returns", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-worker-" });
  try {
    const handle = await startInWorker(
      spec(dir),
      { event: () => {}, ask: () => Promise.resolve("deny") },
      new URL("../engine/fixtures/crashing_worker.ts", import.meta.url),
    );
    const error = await assertRejects(() => within(10_000, handle.open({}), "open"));
    assertStringIncludes(String(error), "the session engine crashed");
    assertStringIncludes(String(error), "skiff run --continue");
    await assertRejects(
      () =>
        within(
          2_000,
          handle.run({ prompt: "x", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 1 }),
          "run",
        ),
      Error,
      "crashed",
    );
    await within(2_000, handle.close(), "close");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Under `deno test` a Worker's module graph is type-checked when the Worker
 * first starts ("Check src/engine/worker_main.ts"): about 10 s on an idle
 * 2-core machine, several times that under load, and none at all under
 * `deno run` or in the binary. Done once here, with a budget of its own, so
 * the steps below time the engine and not the checker. (Timed together, a
 * slow check ran out open's budget; close, waiting on the same start, then
 * failed too, and its error in `finally` replaced open's.)
 */
async function typeCheckWorkersOnce(dir: string): Promise<void> {
  const engine = new Worker(new URL("../../src/engine/worker_main.ts", import.meta.url), {
    type: "module",
  });
  const writer = startConfinedWriter([dir]);
  try {
    // Without init, the engine answers any request with a failure: it is loaded.
    const loaded = new Promise((resolve) => (engine.onmessage = resolve));
    engine.postMessage({ type: "close", id: 1 });
    await within(180_000, Promise.all([loaded, writer.confinement]), "type-checking the Workers");
  } finally {
    engine.terminate();
    writer.close();
  }
}

Deno.test("Ctrl-C right after the engine Worker starts is not lost", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-worker-" }));
  try {
    await typeCheckWorkersOnce(root);
    for (const dir of ["work", "data", "config"]) await Deno.mkdir(`${root}/${dir}`);
    const engineSpec: EngineSpec = {
      ...spec(`${root}/data`),
      workspace: `${root}/work`,
      configDir: `${root}/config`,
      sandbox: { mode: "read-only", network: false, addDirs: [], env: [] },
    };
    const events: string[] = [];
    const handle = await startInWorker(engineSpec, {
      event: (event) => events.push(event.type),
      ask: () => Promise.resolve("deny"),
    });
    let failed = false;
    try {
      handle.abort();
      await within(20_000, handle.open({}), "open");
      const result = await within(
        20_000,
        handle.run({ prompt: "hi", exitCodes: OUTCOME_EXIT_CODES, maxTurns: 3 }),
        "run",
      );
      assertEquals(result.exitCode, 130);
      assertEquals(events.includes("turn.started"), false, "no model request was made");
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // Cleanup must not hide the first failure behind its own.
      await within(10_000, handle.close(), "close").catch((error) => {
        if (!failed) throw error;
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a headless run that can only refuse webfetch gets no network beyond its own hosts", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const base = testSpec({
      workspace: root,
      configDir: `${root}/config`,
      provider: { baseURL: "http://127.0.0.1:8080/v1", apiKey: "k" },
    });
    assertEquals(engineNetHosts(base), ["127.0.0.1:8080"]);
    // Anything that could approve a webfetch opens the network (the policy still asks per URL).
    assertEquals(engineNetHosts({ ...base, interactive: true }), true);
    assertEquals(engineNetHosts({ ...base, flags: { ...base.flags, yes: true } }), true);
    assertEquals(
      engineNetHosts({ ...base, flags: { ...base.flags, allow: ["webfetch(https://docs.*)"] } }),
      true,
    );
    // The same rule in Claude Code's spelling, on the command line.
    const claude = { ...base.flags, allow: ["WebFetch(domain:docs.example)"] };
    assertEquals(engineNetHosts({ ...base, flags: claude }), true);
    assertEquals(
      engineNetHosts({ ...base, interactive: true, flags: { ...base.flags, deny: ["WebFetch"] } }),
      ["127.0.0.1:8080"],
    );
    assertEquals(
      engineNetHosts({
        ...base,
        permissionLayers: [{ source: "global", permission: { webfetch: "allow" } }],
      }),
      true,
    );
    await Deno.mkdir(`${root}/.skiff/agents`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/.skiff/agents/docs.md`,
      "---\ndescription: reads docs\npermission:\n  webfetch: allow\n---\nRead docs.\n",
    );
    assertEquals(engineNetHosts(base), true, "an agent file that names webfetch");
    // A deny anywhere closes it again, whatever else says.
    assertEquals(
      engineNetHosts({ ...base, interactive: true, flags: { ...base.flags, deny: ["webfetch"] } }),
      ["127.0.0.1:8080"],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the engine may read SKIFF_GREP (grep's engine switch) but not API keys", () => {
  const env = permissionsFor(testSpec()).env as string[];
  assertEquals(env.includes("SKIFF_GREP"), true);
  assertEquals(env.some((name) => /API_KEY|OPENAI/.test(name)), false);
});
