/**
 * docs/cli.md's example of text mode's tool lines is what a run prints: the
 * same calls made by a scripted model through the real CLI give the
 * documented lines, word for word.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";

const DOC = new URL("../../docs/cli.md", import.meta.url);

/** The code block after "**Text mode**" in docs/cli.md. */
async function documentedLines(): Promise<string[]> {
  const text = await Deno.readTextFile(DOC);
  const from = text.indexOf("**Text mode**");
  const block = text.slice(from).match(/```\n([\s\S]*?)\n```/);
  assert(from >= 0 && block, "docs/cli.md has no text-mode example");
  return block[1].split("\n");
}

const APP = [
  "// The server's settings.",
  "const host = '0.0.0.0';",
  "const port = 80;",
  ...Array.from({ length: 117 }, (_, index) => `export const setting${index} = ${index};`),
].join("\n") + "\n";

const call = (name: string, args: Record<string, unknown>, id: string): MockTurn => ({
  toolCalls: [{ name, arguments: args, id }],
});

Deno.test("docs/cli.md's text-mode tool lines are a real run's, word for word", async () => {
  const script: MockTurn[] = [
    call("read", { file_path: "src/app.ts" }, "c1"),
    call("bash", { command: "make test" }, "c2"),
    call("edit", {
      file_path: "src/app.ts",
      old_string: "const port = 80;",
      new_string: "const port = 8080;",
    }, "c3"),
    call("bash", { command: "make test" }, "c4"),
    call("edit", {
      file_path: "src/app.ts",
      old_string: "const port = 80;",
      new_string: "const port = 8081;",
    }, "c5"),
    { text: "Done." },
  ];
  await withMockSandbox(script, async (sandbox) => {
    await Deno.mkdir(path.join(sandbox.workspace, "src"));
    await Deno.writeTextFile(path.join(sandbox.workspace, "src", "app.ts"), APP);
    await Deno.writeTextFile(
      path.join(sandbox.workspace, "Makefile"),
      "test:\n\t@grep -q 'port = 8080' src/app.ts\n",
    );
    const run = await runSkiff(["run", "--allow", "bash(make test)", "fix the port"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    const printed = run.stderr.split("\n").filter((line) => /^(✓|✗| {2})/.test(line));
    assertEquals(printed, await documentedLines(), run.stderr);
  });
});
