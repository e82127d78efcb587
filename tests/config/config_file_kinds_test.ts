/**
 * Config files skiff reads at start (the global config.json, .mcp.json) are
 * read only when they are regular files: a FIFO there made `skiff run` wait
 * for a writer. A config file that is not one stops the run with a usage
 * error naming it (its rules are not dropped silently); an `.mcp.json` that
 * is not one is skipped with a warning naming it. (A project's skiff.json
 * that is not a regular file: tests/config/project_config_kinds_test.ts.)
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import { readConfigFile } from "../../src/config/load.ts";

async function mkfifo(file: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert(made.success, `mkfifo failed: ${new TextDecoder().decode(made.stderr)}`);
}

/** skiff run to its end, killed after 90 s so a hang fails the test instead of hanging it. */
async function runToEnd(args: string[], sandbox: Parameters<typeof spawnSkiff>[1]) {
  const child = spawnSkiff(args, sandbox);
  const killer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const output = await child.output().finally(() => clearTimeout(killer));
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("readConfigFile refuses a FIFO config file, naming it, without waiting", async () => {
  const root = await Deno.makeTempDir({ prefix: "skiff-fifo-config-" });
  try {
    const file = path.join(root, "skiff.json");
    await mkfifo(file);
    const reading = readConfigFile(file).then(() => "accepted", (caught) => caught as Error);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<"waited">((resolve) => {
      timer = setTimeout(() => resolve("waited"), 10_000);
    });
    const error = await Promise.race([reading, waited]).finally(() => clearTimeout(timer));
    if (error === "waited") {
      // Give the blocked read its writer, so the test ends instead of hanging.
      (await Deno.open(file, { write: true })).close();
      await reading;
    }
    assert(error instanceof Error, `a FIFO config file was not refused: ${error}`);
    assertStringIncludes(error.message, file);
    assertStringIncludes(error.message, "FIFO");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("skiff run with a FIFO global config.json ends with a usage error naming it", async () => {
  await withMockSandbox([{ text: "never asked" }], async (sandbox, mock) => {
    await new Deno.Command("git", { args: ["init", "-q"], cwd: sandbox.workspace }).output();
    await mkfifo(path.join(sandbox.configDir, "config.json"));
    const result = await runToEnd(["run", "hello"], sandbox);
    assertEquals(result.code, 2, `skiff run did not end as a usage error: ${result.stderr}`);
    assertStringIncludes(result.stderr, path.join(sandbox.configDir, "config.json"));
    assertStringIncludes(result.stderr, "FIFO");
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test("skiff run with a FIFO .mcp.json finishes and warns about it", async () => {
  await withMockSandbox([{ text: "done" }], async (sandbox) => {
    await new Deno.Command("git", { args: ["init", "-q"], cwd: sandbox.workspace }).output();
    await mkfifo(path.join(sandbox.workspace, ".mcp.json"));
    const result = await runToEnd(["run", "--json", "hello"], sandbox);
    assertEquals(result.code, 0, `skiff run did not finish: ${result.stderr}`);
    const events = parseJsonLines(result.stdout);
    const warning = events.find((event) =>
      event.type === "warning" && String(event.message).includes(".mcp.json was not read")
    );
    assert(warning, `no warning names the FIFO: ${result.stdout.slice(0, 2000)}`);
    assertStringIncludes(String(warning.message), "FIFO");
  });
});
