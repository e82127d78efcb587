/**
 * What Deno itself does when skiff starts, as an air-gapped CI job meets it:
 * no yellow warning about tree-sitter-bash's build scripts when the
 * dependencies are installed, and no lookup of Deno's download host (its
 * update check) from `deno task skiff`, the installed `skiff` command or the
 * action's source-mode command. Each launch gets its own recording HTTPS
 * proxy on 127.0.0.1: a lookup shows as a CONNECT to it. A control launch
 * without DENO_NO_UPDATE_CHECK proves the proxy sees the lookup.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, type Sandbox } from "../support/cli.ts";
import { startRecordingProxy } from "../support/recording_proxy.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const decoder = new TextDecoder();

async function installDependencies(config: Record<string, unknown>, sandbox: Sandbox) {
  const project = await Deno.makeTempDir({ dir: sandbox.root, prefix: "project-" });
  await Deno.writeTextFile(path.join(project, "deno.json"), JSON.stringify(config));
  await Deno.copyFile(path.join(ROOT, "deno.lock"), path.join(project, "deno.lock"));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--frozen"],
    cwd: project,
    env: { ...sandbox.env, DENO_NO_UPDATE_CHECK: "1" },
    clearEnv: true,
  }).output();
  const stderr = decoder.decode(output.stderr);
  assertEquals(output.code, 0, stderr);
  return stderr;
}

Deno.test("deno.json: installing skiff's dependencies prints no warning about ignored build scripts", async () => {
  const sandbox = await makeSandbox();
  try {
    const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
    const stderr = await installDependencies(config, sandbox);
    assert(!stderr.includes("Ignored build scripts"), stderr);
    // Control: without the denial Deno warns, on every explicit install.
    delete config.allowScripts;
    const warned = await installDependencies(config, sandbox);
    assertStringIncludes(warned, "Ignored build scripts");
    assertStringIncludes(warned, "tree-sitter-bash");
  } finally {
    await sandbox.cleanup();
  }
});

/**
 * A Deno cache with the shared npm packages but no record of an earlier
 * update check, so Deno would check now (it checks at most once a day).
 */
async function freshDenoDir(sandbox: Sandbox): Promise<string> {
  const dir = path.join(sandbox.root, "deno-dir");
  await Deno.mkdir(dir);
  await Deno.symlink(path.join(sandbox.env.DENO_DIR, "npm"), path.join(dir, "npm"));
  return dir;
}

interface Launch {
  name: string;
  command: string;
  args: string[];
  cwd: string;
}

Deno.test("skiff's launches make no lookup of Deno's download host; a plain deno run does", async () => {
  const sandbox = await makeSandbox();
  const denoBin = path.dirname(Deno.execPath());
  const denoDir = await freshDenoDir(sandbox);
  const pathWithDeno = `${denoBin}:${sandbox.env.PATH}`;
  // The tests' own launches turn the check off; these must show whether they do.
  const { DENO_NO_UPDATE_CHECK: _, ...base } = sandbox.env;
  const env = { ...base, PATH: pathWithDeno, DENO_DIR: denoDir };
  // The installed command, as `deno task install` writes it…
  const installRoot = path.join(sandbox.root, "install-root");
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["task", "install"],
    cwd: ROOT,
    env: { ...env, DENO_INSTALL_ROOT: installRoot },
    clearEnv: true,
  }).output();
  assertEquals(install.code, 0, decoder.decode(install.stderr));
  // …and the action's, with the Deno it found by its full path.
  const actionCommand = path.join(sandbox.root, "action-bin", "skiff");
  const action = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      path.join(ROOT, "scripts", "install.ts"),
      "--to",
      actionCommand,
      "--deno",
      Deno.execPath(),
    ],
    env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
    clearEnv: true,
  }).output();
  assertEquals(action.code, 0, decoder.decode(action.stderr));

  const launches: Launch[] = [
    { name: "control", command: Deno.execPath(), args: ["run", "-A", "main.ts", "run"], cwd: ROOT },
    {
      name: "deno task skiff",
      command: Deno.execPath(),
      args: ["task", "skiff", "run"],
      cwd: ROOT,
    },
    {
      name: "installed skiff",
      command: path.join(installRoot, "bin", "skiff"),
      args: ["run"],
      cwd: sandbox.workspace,
    },
    { name: "action's skiff", command: actionCommand, args: ["run"], cwd: sandbox.workspace },
  ];
  const proxies = launches.map(() => startRecordingProxy());
  const started = Date.now();
  // Each reads its prompt from stdin, held open so it lives past Deno's check.
  const children = launches.map((launch, at) =>
    new Deno.Command(launch.command, {
      args: launch.args,
      cwd: launch.cwd,
      env: { ...env, HTTPS_PROXY: proxies[at].url, HTTP_PROXY: proxies[at].url },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn()
  );
  try {
    const timeout = new Promise((resolve) => setTimeout(resolve, 30_000, "timeout"));
    const control = await Promise.race([proxies[0].seen, timeout]);
    assert(
      control !== "timeout",
      "the control launch made no lookup in 30 s: the test cannot see one",
    );
    // The others live twice as long as the control needed, and three seconds more
    // (`deno task` starts a second Deno, which checks as late again).
    await new Promise((resolve) => setTimeout(resolve, Date.now() - started + 3_000));
    for (const child of children) await child.stdin.close();
    const outputs = await Promise.all(children.map((child) => child.output()));
    for (const [at, output] of outputs.entries()) {
      assertStringIncludes(decoder.decode(output.stderr), "the prompt read from stdin is empty");
      const host = proxies[at].requests.filter((line) => line.includes("deno.land"));
      assertEquals(
        host.length > 0,
        at === 0,
        `${launches[at].name}: ${JSON.stringify(proxies[at].requests)}`,
      );
    }
    assertStringIncludes(proxies[0].requests[0], "CONNECT dl.deno.land:443");
  } finally {
    for (const child of children) {
      try {
        child.kill();
      } catch { /* already ended */ }
    }
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await sandbox.cleanup();
  }
});
