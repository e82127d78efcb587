/**
 * End-to-end: `skiff run --protect 'tests/**'` keeps the agent from changing
 * the tests that judge it — the file tools are refused with the reason, and
 * what a command writes there is put back and reported refused (the command
 * guard of `sandbox.protect`, the mechanism it reuses).
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { hasBwrap } from "../escape/e2e_support.ts";

function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn("WARNING: bubblewrap is missing: protect_test runs commands without the OS sandbox");
  return ["--sandbox", "full-access"];
}

const ORIGINAL = "test $(cat value.txt) = 3\n";

const SCRIPT: MockTurn[] = [
  { toolCalls: [{ name: "read", arguments: { file_path: "tests/value_test.sh" } }] },
  {
    toolCalls: [{
      name: "edit",
      arguments: { file_path: "tests/value_test.sh", old_string: "= 3", new_string: "= 1" },
    }],
  },
  {
    toolCalls: [{
      name: "write",
      arguments: { file_path: "tests/extra_test.sh", content: "true\n" },
    }],
  },
  {
    toolCalls: [{
      name: "bash",
      arguments: { command: "echo true > tests/value_test.sh && echo x > tests/new_test.sh" },
    }],
  },
  { text: "The tests are easier now." },
];

Deno.test("--protect 'tests/**' refuses the file tools and puts back a command's writes there", async () => {
  await withMockSandbox(SCRIPT, async (sandbox) => {
    const at = (name: string) => path.join(sandbox.workspace, name);
    await Deno.mkdir(at("tests"));
    await Deno.writeTextFile(at("tests/value_test.sh"), ORIGINAL);
    const run = await runSkiff(
      [
        "run",
        ...sandboxFlags(),
        "--allow",
        "bash(*)",
        "--allow",
        "edit",
        "--protect",
        "tests/**",
        "--json",
        "make the tests pass",
      ],
      sandbox,
    );
    assertEquals(run.code, 3, run.stdout + run.stderr);
    const results = parseJsonLines(run.stdout).filter((event) => event.type === "tool.completed");
    assertEquals(results.map((result) => result.ok), [true, false, false, false]);
    for (const refused of results.slice(1, 3)) {
      assertStringIncludes(JSON.stringify(refused.error), "edit(tests/**) → deny");
    }
    if (!hasBwrap) return; // full-access has no command guard; warned above
    const command = JSON.stringify(results[3].error);
    assertStringIncludes(command, "tests/value_test.sh");
    assertEquals(await Deno.readTextFile(at("tests/value_test.sh")), ORIGINAL, "put back");
    const created = await Deno.lstat(at("tests/new_test.sh")).then(() => true, () => false);
    assertEquals(created, false, "a file the command made there is removed");
    const extra = await Deno.lstat(at("tests/extra_test.sh")).then(() => true, () => false);
    assertEquals(extra, false, "the write tool made nothing");
  });
});

Deno.test("--protect with a path that cannot be a pattern is a usage error before the run", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const run = await runSkiff(["run", "--protect", "/etc/passwd", "x"], sandbox);
    assertEquals(run.code, 2, run.stderr);
    assertStringIncludes(run.stderr, "--protect");
    assertStringIncludes(run.stderr, "relative path inside the workspace");
    assertEquals(mock.requests.length, 0);
  });
});
