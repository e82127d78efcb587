/**
 * `skiff doctor`: the report from given facts (which backend, why not the
 * others, the endpoint and how to configure it), and the real command end to
 * end against the mock endpoint and a dead one.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff } from "../../support/cli.ts";
import { startMockServer } from "../../support/mock_server.ts";
import { chosenBackend, type DoctorFacts, doctorReport } from "../../../src/cli/doctor/doctor.ts";

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

Deno.test("e2e: skiff doctor against a live and a dead endpoint", async () => {
  const mock = startMockServer([]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url });
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
