/**
 * End-to-end: the read-only plan agent under `--yes` cannot delete or copy
 * files (file_delete, file_copy), neither as shipped nor when a user's config
 * switches those tools back on for it — its rules deny every key under which
 * a call changes the workspace. The control runs the same calls as `build`,
 * which deletes and copies.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { exists, lastToolResults, withAttack } from "./e2e_support.ts";

const CALLS = [
  { name: "file_copy", arguments: { source: "a.txt", destination: "b.txt" } },
  { name: "file_delete", arguments: { file_path: "a.txt" } },
];

const CASES = [
  { label: "plan as shipped", agent: "plan", config: undefined, changes: false },
  {
    label: "plan with file_copy and file_delete switched back on",
    agent: "plan",
    config: { agent: { plan: { tools: { file_copy: true, file_delete: true } } } },
    changes: false,
  },
  { label: "control: build", agent: "build", config: undefined, changes: true },
];

for (const testCase of CASES) {
  Deno.test(`e2e: --yes, ${testCase.label}: file_copy and file_delete ${testCase.changes ? "change" : "leave"} the workspace`, async () => {
    await withAttack([{ toolCalls: CALLS }, { text: "done" }], async (sandbox, mock) => {
      if (testCase.config) {
        await Deno.writeTextFile(
          path.join(sandbox.configDir, "config.json"),
          JSON.stringify(testCase.config),
        );
      }
      const result = await runSkiff(
        ["run", "--json", "--yes", "--agent", testCase.agent, "tidy up"],
        sandbox,
      );
      const a = path.join(sandbox.workspace, "a.txt");
      const b = path.join(sandbox.workspace, "b.txt");
      assertEquals(await exists(a), !testCase.changes, result.stdout + result.stderr);
      assertEquals(await exists(b), testCase.changes);
      const results = lastToolResults(mock).map((message) => message.content);
      assertEquals(results.length, 2);
      if (!testCase.changes) {
        for (const content of results) assert(/denied|not_found/.test(content), content);
        if (testCase.config) {
          for (const content of results) assertStringIncludes(content, "denied");
        }
      }
    });
  });
}
