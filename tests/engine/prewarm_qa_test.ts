/**
 * The engine's Worker started at process start (src/boot/prewarm.ts), used as
 * people start skiff: through `deno task skiff` from another folder (the
 * CLI moves to INIT_CWD, src/cli/main.ts), and with `--dir` naming the
 * workspace. The permissions remembered for a start belong to the folder the
 * command works in, so each folder's next start finds its own.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { MAIN, makeSandbox, parseJsonLines, type Sandbox } from "../support/cli.ts";
import { keySuffix, PERMISSIONS_FILE } from "../../src/boot/prewarm.ts";
import { engineWorkerModule } from "../../src/boot/bundle.ts";

/** The end of a key for the engine skiff runs here: bundled after `deno task build`. */
const SUFFIX = keySuffix(engineWorkerModule());
import { startMockServer } from "../support/mock_server.ts";

const READ_ONE = ["tool", "read", '{"file_path":"one.txt"}'];

/** skiff started in `cwd` (not the workspace), as `deno task --cwd <repo> skiff` or a script does. */
async function skiffIn(
  cwd: string,
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string> = {},
): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--unstable-worker-options", "--no-prompt", MAIN, ...args],
    cwd,
    env: { ...sandbox.env, SKIFF_TIMINGS: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 0, stderr);
  const [line] = parseJsonLines(stdout);
  assertEquals(line.ok, true, stdout);
  assertStringIncludes(String(line.output), "hello");
  return stderr;
}

function rememberedKeys(dataDir: string): string[] {
  const file = JSON.parse(Deno.readTextFileSync(path.join(dataDir, PERMISSIONS_FILE)));
  return file.entries.map((entry: { key: string }) => entry.key);
}

Deno.test("under deno task (INIT_CWD), the permissions are remembered for the user's folder, not the repository's", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    // `deno task` starts skiff where deno.json is (here: home) with INIT_CWD the user's folder.
    const viaTask = await skiffIn(sandbox.home, READ_ONE, sandbox, {
      INIT_CWD: sandbox.workspace,
    });
    assert(!viaTask.includes("prewarm-"), `nothing was remembered yet: ${viaTask}`);
    assertEquals(rememberedKeys(sandbox.dataDir), [`tool\n${sandbox.workspace}${SUFFIX}`]);
    // So a start in the folder itself finds them, and so does the next one through the task.
    assertStringIncludes(await skiffIn(sandbox.workspace, READ_ONE, sandbox), "prewarm-used=");
    const again = await skiffIn(sandbox.home, READ_ONE, sandbox, { INIT_CWD: sandbox.workspace });
    assertStringIncludes(again, "prewarm-used=");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("under deno task, a relative SKIFF_DATA_DIR is the same folder for the pre-started Worker as for the CLI", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    // Relative to where the user is (the CLI moves there): root/data, the sandbox's data folder.
    const env = { INIT_CWD: sandbox.root, SKIFF_DATA_DIR: "data" };
    const args = [...READ_ONE, "--dir", sandbox.workspace];
    await skiffIn(sandbox.home, args, sandbox, env);
    assertEquals(rememberedKeys(sandbox.dataDir).length, 1);
    assertStringIncludes(await skiffIn(sandbox.home, args, sandbox, env), "prewarm-used=");
    // Nothing was written relative to the folder deno task started in.
    assertEquals(
      await Deno.stat(path.join(sandbox.home, "data")).then(() => true, () => false),
      false,
    );
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff tool --dir A, then --dir B, then --dir A from one folder: A's start uses its own remembered Worker", async () => {
  const sandbox = await makeSandbox();
  try {
    const a = path.join(sandbox.root, "a");
    const b = path.join(sandbox.root, "b");
    for (const dir of [a, b]) {
      await Deno.mkdir(dir);
      await Deno.writeTextFile(path.join(dir, "one.txt"), "hello\n");
    }
    await skiffIn(sandbox.home, [...READ_ONE, "--dir", a], sandbox);
    await skiffIn(sandbox.home, ["tool", "--dir", b, ...READ_ONE.slice(1)], sandbox);
    const backToA = await skiffIn(sandbox.home, [...READ_ONE, `--dir=${a}`], sandbox);
    assertStringIncludes(backToA, "prewarm-used=");
    assertEquals(rememberedKeys(sandbox.dataDir).length, 2);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a start that waited (a prompt still coming on stdin) keeps what another folder's start remembered meanwhile", async () => {
  const sandbox = await makeSandbox({ SKIFF_MODEL: "mock-model" });
  const mock = startMockServer([{ text: "done" }]);
  try {
    const other = path.join(sandbox.root, "other");
    await Deno.mkdir(other);
    await Deno.writeTextFile(path.join(other, "one.txt"), "hello\n");
    // A run in the workspace reads the remembered permissions at once, then waits for its prompt.
    const waiting = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--unstable-worker-options", "--no-prompt", MAIN, "run"],
      cwd: sandbox.workspace,
      env: { ...sandbox.env, OPENAI_BASE_URL: mock.url },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Meanwhile a start in another folder remembers its permissions.
    await skiffIn(other, READ_ONE, sandbox);
    assertEquals(rememberedKeys(sandbox.dataDir), [`tool\n${other}${SUFFIX}`]);
    const writer = waiting.stdin.getWriter();
    await writer.write(new TextEncoder().encode("go on"));
    await writer.close();
    const output = await waiting.output();
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
    assertEquals(rememberedKeys(sandbox.dataDir).sort(), [
      `run\n${sandbox.workspace}${SUFFIX}`,
      `tool\n${other}${SUFFIX}`,
    ]);
    assertStringIncludes(await skiffIn(other, READ_ONE, sandbox), "prewarm-used=");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});
