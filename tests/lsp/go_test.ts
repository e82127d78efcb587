/**
 * Go diagnostics after edits, through `skiff tool` with the real gopls (from
 * Debian's packages, as .ci/run installs it): an edit introducing a type
 * error gets it back, the edit that fixes it gets none. gopls runs in the
 * read-only sandbox, its cache in the sandbox's temporary folder; the control,
 * gopls as a command of the user's own (its cache in the read-only home),
 * loads no package and answers nothing.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";
import * as path from "../../src/lib/path.ts";
import { diagnosticsOf, requireServer, writeFiles } from "./_servers.ts";

const WAITS = { firstWaitMs: 60_000, waitMs: 30_000 };
const APT = "apt-get install -y golang-go gopls, as .ci/run does";

function edit(from: string, to: string): string {
  return JSON.stringify({
    tool: "edit",
    input: { file_path: "main.go", old_string: from, new_string: to },
  });
}

/** The `skiff tool` answers to a read, a breaking edit and a fixing one of main.go. */
async function breakAndFix(lsp: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const sandbox = await makeSandbox();
  try {
    // A home as a user's is in the sandbox: there, but read-only (the tests' own is under
    // /tmp, which the sandbox replaces with its private, writable one).
    sandbox.env.HOME = path.join(sandbox.workspace, "home");
    await Deno.mkdir(sandbox.env.HOME);
    // The user's own config: a project's names no server until it is trusted.
    await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify({ lsp }));
    await writeFiles(sandbox, {
      "go.mod": "module example.com/demo\n\ngo 1.19\n",
      "main.go": "package main\n\nfunc double(n int) int {\n\treturn n * 2\n}\n\n" +
        "func main() {\n\t_ = double(2)\n}\n",
    });
    const lines = [
      JSON.stringify({ tool: "read", input: { file_path: "main.go" } }),
      edit("_ = double(2)", '_ = double("2")'),
      edit('_ = double("2")', "_ = double(3)"),
    ].join("\n") + "\n";
    const result = await runSkiff(["tool"], sandbox, { input: lines });
    assertEquals(result.code, 0, result.stderr);
    return parseJsonLines(result.stdout);
  } finally {
    await sandbox.cleanup();
  }
}

Deno.test("an edit that introduces a Go type error gets it back; the fix gets none", async () => {
  await requireServer("gopls", APT);
  await requireServer("go", APT);
  const [, broke, fixed] = await breakAndFix(WAITS);
  const introduced = diagnosticsOf(broke);
  assertEquals(introduced.notes, [], JSON.stringify(introduced));
  assertEquals(introduced.errors.length, 1, JSON.stringify(introduced));
  assertEquals(introduced.errors[0].line, 8);
  assertStringIncludes(introduced.errors[0].message, "string");
  assertStringIncludes(String(broke.output), "main.go:8:");
  assertEquals(diagnosticsOf(fixed).errors, []);
  assertEquals(diagnosticsOf(fixed).busy, []);
});

Deno.test("control: gopls with its cache in the read-only home finds nothing", async () => {
  await requireServer("gopls", APT);
  await requireServer("go", APT);
  // A command of one's own is a program skiff knows nothing about: no cache in the temp folder.
  const [, broke] = await breakAndFix({
    firstWaitMs: 3000,
    waitMs: 3000,
    servers: { go: { command: ["gopls"] } },
  });
  // gopls cannot make its build cache, loads no package and so never answers.
  assertEquals(diagnosticsOf(broke).errors, [], JSON.stringify(broke));
  assertEquals(diagnosticsOf(broke).busy, ["go"], JSON.stringify(broke));
});
