/**
 * A server that answers `initialize` and then never publishes (or, when it
 * offers to be asked for diagnostics, never answers the asking): each edit
 * waits no longer than the bound and says the server is busy; once it has
 * been silent past the hang limit it is switched off, said once, and the
 * next edit does not wait for it at all.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { scriptedServers } from "./_servers.ts";
import * as path from "../../src/lib/path.ts";

// Answers initialize, with the capabilities given as its argument, and nothing else, ever.
const SILENT_SERVER = `
const capabilities = JSON.parse(process.argv[2] ?? "{}");
function handle(message) {
  if (message.method === "initialize") send({ id: message.id, result: { capabilities } });
}
`;

/** The rounds of edits against a silent server offering `capabilities`. */
async function boundedThenSwitchedOff(capabilities: Record<string, unknown>): Promise<void> {
  const workspace = await Deno.makeTempDir({ prefix: "skiff-lsp-hung-" });
  const diagnostics = await scriptedServers(workspace, "silent", SILENT_SERVER, {
    args: [JSON.stringify(capabilities)],
    extension: ".silent",
    waits: { firstWaitMs: 3000, waitMs: 300, hungAfterMs: 4000 },
  });
  const file = {
    real: path.join(workspace, "a.silent"),
    display: "a.silent",
    before: "a",
    after: "b",
  };
  try {
    const timed = async () => {
      const started = performance.now();
      const report = await diagnostics.diagnose([file]);
      return { report: report!, took: performance.now() - started };
    };
    const first = await timed();
    assertEquals(first.report.busy, ["silent"]);
    assert(first.took < 3000 + 1000, `first edit took ${first.took} ms`);
    let switchedOff: string[] = [];
    for (let round = 0; round < 30 && switchedOff.length === 0; round++) {
      const next = await timed();
      assert(next.took < 300 + 1000, `an edit took ${next.took} ms with a 300 ms wait`);
      switchedOff = next.report.notes;
    }
    assertEquals(switchedOff.length, 1);
    assertStringIncludes(
      switchedOff[0],
      "silent switched off for this session: it answered nothing",
    );
    const after = await timed();
    assertEquals(after.report, { errors: [], busy: [], notes: [] });
    assert(after.took < 100, `a switched-off server still held the edit ${after.took} ms`);
  } finally {
    await diagnostics.close();
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test("a server that never publishes is bounded per edit, then switched off once", async () => {
  await boundedThenSwitchedOff({});
});

Deno.test("a server asked for diagnostics that never answers is bounded the same", async () => {
  await boundedThenSwitchedOff({ diagnosticProvider: { interFileDependencies: false } });
});
