/**
 * A project config (`skiff.json`, `.skiff/config.json`) that is not a regular
 * file is found when looked for, and reading it stops skiff with a config
 * error naming it, as the global config.json does: it may carry deny rules,
 * which must not be dropped quietly. Before, the search passed such an entry
 * over as if it were absent.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { spawnSkiff, withMockSandbox } from "../support/cli.ts";
import { loadConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { findProjectConfig } from "../../src/config/locations.ts";

async function mkfifo(file: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert(made.success, `mkfifo failed: ${new TextDecoder().decode(made.stderr)}`);
}

for (const name of ["skiff.json", ".skiff/config.json"]) {
  Deno.test(`loadConfig: a FIFO project ${name} is a config error naming it`, async () => {
    const root = await Deno.makeTempDir({ prefix: "skiff-project-fifo-" });
    try {
      const workspace = path.join(root, "work");
      const configDir = path.join(root, "config");
      await Deno.mkdir(path.join(workspace, ".skiff"), { recursive: true });
      await Deno.mkdir(configDir);
      const file = path.join(workspace, name);
      await mkfifo(file);
      assertEquals((await findProjectConfig(workspace))?.file, file);
      const error = await loadConfig({
        workspace,
        env: { SKIFF_CONFIG_DIR: configDir },
        home: root,
      }).then(() => undefined, (caught) => caught as Error);
      assert(error instanceof ConfigError, `the FIFO ${name} was passed over: ${error}`);
      assertStringIncludes(error.message, file);
      assertStringIncludes(error.message, "FIFO");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("loadConfig: a folder named skiff.json is a config error, not a missing file", async () => {
  const root = await Deno.makeTempDir({ prefix: "skiff-project-folder-" });
  try {
    const configDir = path.join(root, "config");
    await Deno.mkdir(path.join(root, "work", "skiff.json"), { recursive: true });
    await Deno.mkdir(configDir);
    const error = await loadConfig({
      workspace: path.join(root, "work"),
      env: { SKIFF_CONFIG_DIR: configDir },
      home: root,
    }).then(() => undefined, (caught) => caught as Error);
    assert(error instanceof ConfigError, `the folder was passed over: ${error}`);
    assertStringIncludes(error.message, path.join(root, "work", "skiff.json"));
    assertStringIncludes(error.message, "a folder");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

for (const ci of [undefined, "true"]) {
  Deno.test(
    `skiff run with a FIFO skiff.json ends with exit 2 naming it (CI ${ci ?? "unset"})`,
    async () => {
      await withMockSandbox([{ text: "never asked" }], async (sandbox, mock) => {
        await new Deno.Command("git", { args: ["init", "-q"], cwd: sandbox.workspace }).output();
        const file = path.join(sandbox.workspace, "skiff.json");
        await mkfifo(file);
        const child = spawnSkiff(["run", "hello"], sandbox, ci ? { CI: ci } : {});
        // A hang fails the test instead of hanging it.
        const killer = setTimeout(() => child.kill("SIGKILL"), 90_000);
        const output = await child.output().finally(() => clearTimeout(killer));
        const stderr = new TextDecoder().decode(output.stderr);
        assertEquals(output.code, 2, `skiff run did not end as a config error: ${stderr}`);
        assertStringIncludes(stderr, file);
        assertStringIncludes(stderr, "FIFO");
        assertEquals(mock.requests.length, 0);
      });
    },
  );
}
