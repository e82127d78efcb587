/**
 * `deno task install` puts a `skiff` command on the user's PATH from a clone,
 * as the README says. Installed into a temporary DENO_INSTALL_ROOT, the
 * command must work from a folder outside the clone: print its version, and
 * run a prompt to the end against the scripted mock model.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox } from "../support/cli.ts";
import { startMockServer } from "../support/mock_server.ts";
import { VERSION } from "../../src/version.ts";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

async function output(command: Deno.Command) {
  const result = await command.output();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    stdout: decoder.decode(result.stdout),
    stderr: decoder.decode(result.stderr),
  };
}

Deno.test("deno task install makes a skiff command that runs a prompt from another folder", async () => {
  const sandbox = await makeSandbox();
  const mock = startMockServer([
    { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }] },
    { text: "The notes say hello." },
  ]);
  try {
    const installRoot = path.join(sandbox.root, "deno-install");
    // The installed script starts `deno` by name, as it would on a user's PATH.
    const pathWithDeno = `${path.dirname(Deno.execPath())}:${sandbox.env.PATH}`;
    const install = await output(
      new Deno.Command(Deno.execPath(), {
        args: ["task", "install"],
        cwd: REPO,
        env: { ...sandbox.env, PATH: pathWithDeno, DENO_INSTALL_ROOT: installRoot },
        clearEnv: true,
      }),
    );
    assertEquals(install.code, 0, install.stderr);
    const skiff = path.join(installRoot, "bin", "skiff");
    assert((await Deno.stat(skiff)).isFile, `${skiff} was not written`);
    // Deno's own progress-line clears would erase the chat's bottom region.
    assertStringIncludes(await Deno.readTextFile(skiff), " --quiet ");

    // From a folder outside the clone, by name, as the README has it.
    const env = {
      ...sandbox.env,
      PATH: `${path.join(installRoot, "bin")}:${pathWithDeno}`,
      OPENAI_BASE_URL: mock.url,
      SKIFF_MODEL: "mock-model",
    };
    const version = await output(
      new Deno.Command("skiff", {
        args: ["--version"],
        cwd: sandbox.workspace,
        env,
        clearEnv: true,
      }),
    );
    assertEquals(version.code, 0, version.stderr);
    assertEquals(version.stdout.trim(), `skiff ${VERSION}`);

    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "hello\n");
    const run = await output(
      new Deno.Command("skiff", {
        args: ["run", "what do the notes say?"],
        cwd: sandbox.workspace,
        env,
        clearEnv: true,
      }),
    );
    assertEquals(run.code, 0, run.stderr);
    assertEquals(run.stdout.trim(), "The notes say hello.");
    // It worked on the folder it was started in, not on the clone.
    const system = (mock.requests[0].messages as { content: string }[])[0].content;
    assertStringIncludes(system, sandbox.workspace);
    assertEquals(mock.requests.length, 2);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});
