/**
 * `skiff doctor`: the report from given facts (which backend, why not the
 * others, the endpoint and how to configure it), and the real command end to
 * end against the mock endpoint and a dead one.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff } from "../../support/cli.ts";
import { startMockServer } from "../../support/mock_server.ts";
import {
  chosenBackend,
  type DoctorFacts,
  doctorReport,
  readinessChecks,
} from "../../../src/cli/doctor/doctor.ts";

const facts = (over: Partial<DoctorFacts> = {}): DoctorFacts => ({
  platform: "linux",
  sandboxes: {
    bwrap: null,
    sandboxExec: null,
    landlock: 7,
    reasons: { bwrap: "setting up uid map: Permission denied" },
  },
  backend: "auto",
  shell: "/usr/bin/bash",
  versions: { deno: "2.9.6", bwrap: "bubblewrap 0.11.0", rg: null },
  configDir: "/home/u/.config/skiff",
  dataDir: "/home/u/.local/share/skiff",
  baseURL: "http://localhost:11434/v1",
  endpoint: { status: 200 },
  code: { state: { kind: "absent" }, optedOut: false, standalone: false, root: "/src/skiff" },
  ...over,
});

Deno.test("doctor: names the backend in use and why the other does not work", () => {
  const text = doctorReport(facts()).join("\n");
  assertStringIncludes(text, "bwrap:    does not work: setting up uid map: Permission denied");
  assertStringIncludes(text, "landlock: works (kernel ABI 7)");
  assertStringIncludes(text, "commands run with: landlock");
  assertStringIncludes(text, "deno: 2.9.6");
  assertStringIncludes(text, "rg: not installed");
  assertStringIncludes(text, "data: /home/u/.local/share/skiff");
  assertStringIncludes(text, "Endpoint http://localhost:11434/v1: answers (HTTP 200)");
});

Deno.test("doctor: a forced backend that does not work, and no backend at all, say so", () => {
  assertEquals(
    chosenBackend(facts({ backend: "bwrap" })),
    "none: 'bwrap' is forced (sandbox.backend) and does not work here",
  );
  const none = facts({
    sandboxes: { bwrap: null, sandboxExec: null, landlock: null, reasons: { landlock: "ENOSYS" } },
  });
  assertStringIncludes(doctorReport(none).join("\n"), "commands are refused");
});

Deno.test("doctor: which code runs, and the command that builds the bundle", () => {
  const code = facts().code;
  const line = (over: Partial<DoctorFacts["code"]>) =>
    doctorReport(facts({ code: { ...code, ...over } })).find((text) => text.startsWith("  code: "));
  assertEquals(
    line({}),
    "  code: from the sources: not built; `cd /src/skiff && deno task build` makes each start faster (docs/performance.md)",
  );
  assertEquals(
    line({ state: { kind: "stale", reason: "src/engine/engine.ts changed since the build" } }),
    "  code: from the sources: the bundle is stale (src/engine/engine.ts changed since the build); `cd /src/skiff && deno task build` rebuilds it",
  );
  const fresh = {
    kind: "fresh" as const,
    dir: new URL("file:///src/skiff/dist/bundle/"),
    engineDir: new URL("file:///src/skiff/dist/engine/"),
  };
  assertEquals(line({ state: fresh }), "  code: bundled (/src/skiff/dist/bundle)");
  assertEquals(line({ state: fresh, standalone: true }), "  code: bundled (in this binary)");
  assertEquals(line({ state: fresh, optedOut: true }), "  code: from the sources (SKIFF_BUNDLE=0)");
});

Deno.test("doctor: an endpoint that does not answer says how to configure it", () => {
  const text = doctorReport(facts({ endpoint: { error: "Connection refused" } })).join("\n");
  assertStringIncludes(text, "does not answer (Connection refused)");
  assertStringIncludes(text, "OPENAI_BASE_URL or provider.baseURL");
});

Deno.test("doctor: what a run needs, each failing check saying what to do", () => {
  const none = facts({
    baseURL: "https://api.openai.com/v1",
    endpoint: { status: 401 },
    needs: { keySet: false, keyNeeded: true },
  });
  const failed = readinessChecks(none).filter((check) => !check.ok).map((check) => check.text);
  assertEquals(failed.length, 3, failed.join("\n"));
  assertStringIncludes(failed[0], "model: none set. Pass --model <name>, set SKIFF_MODEL");
  assertStringIncludes(failed[1], "API key: none, and https://api.openai.com/v1 needs one");
  assertStringIncludes(failed[2], "refuses the key (HTTP 401)");
  assertStringIncludes(doctorReport(none).join("\n"), "cannot run here yet: 3 of 5 checks failed");
  const ready = facts({ needs: { model: "qwen", keySet: false, keyNeeded: false } });
  assertEquals(readinessChecks(ready).filter((check) => !check.ok), []);
  assertStringIncludes(doctorReport(ready).join("\n"), "skiff can run here.");
  const broken = facts({
    needs: {
      configError: "/c/config.json: provider.modle: unknown key",
      model: "m",
      keySet: true,
      keyNeeded: false,
    },
  });
  assertEquals(readinessChecks(broken).filter((check) => !check.ok).map((check) => check.text), [
    "config: /c/config.json: provider.modle: unknown key",
  ]);
});

Deno.test("e2e: skiff doctor with no model and no key fails naming both; a config typo is one failed check among the rest", async () => {
  const sandbox = await makeSandbox();
  try {
    const bare = await runSkiff(["doctor"], sandbox);
    assertEquals(bare.code, 1, bare.stdout + bare.stderr);
    assertStringIncludes(bare.stdout, "FAIL model: none set");
    assertStringIncludes(
      bare.stdout,
      "FAIL API key: none, and https://api.openai.com/v1 needs one",
    );
    assertStringIncludes(bare.stdout, "skiff cannot run here yet");

    const mock = startMockServer([]);
    try {
      await Deno.writeTextFile(
        `${sandbox.configDir}/config.json`,
        '{ "provider": { "modle": "m" } }',
      );
      const typo = await runSkiff(["doctor"], sandbox, {
        env: { OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "m" },
      });
      assertEquals(typo.code, 1, typo.stdout + typo.stderr);
      assertStringIncludes(typo.stdout, "FAIL config: ");
      assertStringIncludes(typo.stdout, 'unknown key "modle"');
      // The rest of the report was made, from the environment.
      assertStringIncludes(typo.stdout, "ok   model: m");
      assertStringIncludes(typo.stdout, `Endpoint ${mock.url.replace(/\/+$/, "")}: answers`);
    } finally {
      await mock.close();
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("e2e: skiff doctor against a live and a dead endpoint", async () => {
  const mock = startMockServer([]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    const live = await runSkiff(["doctor"], sandbox);
    assertStringIncludes(live.stdout, `Endpoint ${mock.url.replace(/\/+$/, "")}: answers`);
    assertStringIncludes(live.stdout, `config: ${sandbox.configDir}`);
    assertStringIncludes(live.stdout, `data: ${sandbox.dataDir}`);
    assertStringIncludes(live.stdout, `deno: ${Deno.version.deno}`);
    assert(/commands run with: (bwrap|landlock|none)/.test(live.stdout), live.stdout);
    const works = !/commands run with: none/.test(live.stdout);
    assertEquals(live.code, works ? 0 : 1, live.stderr);
    await mock.close();
    const dead = await runSkiff(["doctor"], sandbox);
    assertStringIncludes(dead.stdout, "does not answer");
    assertStringIncludes(dead.stdout, "OPENAI_BASE_URL");
  } finally {
    await sandbox.cleanup();
  }
});
