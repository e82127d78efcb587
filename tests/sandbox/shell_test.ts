/**
 * Commands run with bash when it is installed, else sh, and the bash tool's
 * description says which.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { commandShell } from "../../src/sandbox/shell.ts";
import { chooseLauncher } from "../../src/sandbox/choose.ts";
import { bashTool } from "../../src/tools/process/bash.ts";

const settings = {
  mode: "workspace-write" as const,
  workspace: "/var/tmp",
  addDirs: [],
  network: false,
  envNames: [],
};

Deno.test("shell: bash where installed, sh where not", () => {
  assertEquals(commandShell((file) => file === "/usr/bin/bash"), {
    program: "/usr/bin/bash",
    name: "bash",
  });
  assertEquals(commandShell(() => false), { program: "sh", name: "sh" });
});

Deno.test("shell: the chosen launchers run the command with the shell found", async () => {
  const available = { bwrap: "/usr/bin/bwrap", sandboxExec: null, landlock: 7 };
  for (const backend of ["bwrap", "landlock"] as const) {
    const choice = chooseLauncher(settings, "linux", available, undefined, backend, "/bin/bash");
    assert(choice.kind === "launcher");
    const { argv } = await choice.launcher.prepare("[[ 1 == 1 ]]", "/var/tmp");
    assertEquals(argv.slice(-3, -1), ["/bin/bash", "-c"], backend);
  }
  const dash = chooseLauncher(settings, "linux", available, undefined, "landlock", "sh");
  assert(dash.kind === "launcher");
  assertEquals((await dash.launcher.prepare("ls", "/var/tmp")).argv.slice(-3, -1), [
    "/bin/sh",
    "-c",
  ]);
});

Deno.test("shell: the bash tool's description names the shell of this machine", () => {
  const shell = commandShell();
  assert(
    bashTool.description.includes(`runs with \`${shell.name} -c\``),
    bashTool.description,
  );
  if (shell.name === "sh") {
    console.warn("!!! bash is not installed here: the bash case is not run !!!");
  }
});

Deno.test({
  name: "shell: a bash-only line runs under the real Landlock backend",
  ignore: commandShell().name !== "bash",
}, async () => {
  const { probeSandboxes } = await import("../../src/sandbox/choose.ts");
  const found = await probeSandboxes();
  if (!found.landlock) {
    console.warn(`!!! Landlock does not work here (${found.reasons?.landlock}): SKIPPED !!!`);
    return;
  }
  const ws = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-shell-" });
  try {
    const choice = chooseLauncher(
      { ...settings, workspace: ws },
      "linux",
      found,
      undefined,
      "landlock",
    );
    assert(choice.kind === "launcher");
    const line = "set -o pipefail; a=(x y); [[ ${#a[@]} == 2 ]] && echo {1..3} && cat <(echo sub)";
    const { argv, env } = await choice.launcher.prepare(line, ws);
    const output = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      env,
      clearEnv: true,
      cwd: ws,
    })
      .output();
    assertEquals(new TextDecoder().decode(output.stdout), "1 2 3\nsub\n");
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});
