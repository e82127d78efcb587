/**
 * The sandbox hints skiff prints work as printed: on a machine where
 * bubblewrap cannot run (here: /bin/false bound over it in a mount
 * namespace) a run that forced `--sandbox-backend bwrap` is refused with
 * "Choose --sandbox-backend auto …, or run `skiff doctor`"; the same run
 * with `--sandbox-backend auto` runs the command under Landlock, and
 * `skiff doctor` says bubblewrap does not work and Landlock does.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { type CliResult, MAIN, type Sandbox, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";

const landlockWorks = typeof (await probeSandboxes()).landlock === "number";
const canHideBwrap = Deno.uid() === 0 &&
  new Deno.Command("unshare", { args: ["-m", "true"], stderr: "null" }).outputSync().success;
if (!landlockWorks || !canHideBwrap) {
  console.warn(
    "\n!!! SKIPPED landlock_hints_test: it needs Landlock, root and `unshare -m` (to hide " +
      "bubblewrap in a mount namespace) !!!\n",
  );
}

/** skiff as root in a mount namespace where bubblewrap is /bin/false. */
async function runWithoutBwrap(
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const output = await new Deno.Command("unshare", {
    args: [
      "-m",
      "sh",
      "-c",
      'mount --bind /bin/false "$(command -v bwrap)" && exec "$@"',
      "sh",
      Deno.execPath(),
      "run",
      "--allow-all",
      "--unstable-worker-options",
      "--no-prompt",
      MAIN,
      ...args,
    ],
    cwd: sandbox.workspace,
    env: { ...sandbox.env, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const writeFile: MockTurn[] = [
  { toolCalls: [{ name: "bash", arguments: { command: "echo hi > made.txt" } }] },
  { text: "done" },
];

for (const ci of [undefined, "true"]) {
  const env: Record<string, string> = ci ? { CI: ci } : {};
  Deno.test({
    name: `hints: a forced bwrap that cannot run names --sandbox-backend auto and skiff doctor, ` +
      `and both work as printed (CI ${ci ?? "unset"})`,
    ignore: !landlockWorks || !canHideBwrap,
    async fn() {
      await withMockSandbox([...writeFile, ...writeFile], async (sandbox) => {
        const allow = ["--allow", "bash(echo *)"];
        const forced = await runWithoutBwrap(
          ["run", "--sandbox-backend", "bwrap", ...allow, "write it"],
          sandbox,
          env,
        );
        assertEquals(forced.code, 3, forced.stderr);
        assertStringIncludes(forced.stderr, "the sandbox backend 'bwrap' you chose");
        assertStringIncludes(forced.stderr, "Choose --sandbox-backend auto");
        assertStringIncludes(forced.stderr, "run `skiff doctor`");
        assert(
          !(await Deno.stat(path.join(sandbox.workspace, "made.txt")).then(
            () => true,
            () => false,
          )),
          "the refused command did not run",
        );

        const auto = await runWithoutBwrap(
          ["run", "--sandbox-backend", "auto", ...allow, "write it"],
          sandbox,
          env,
        );
        assertEquals(auto.code, 0, auto.stderr);
        assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "made.txt")), "hi\n");

        const doctor = await runWithoutBwrap(["doctor"], sandbox, env);
        assertEquals(doctor.code, 0, doctor.stderr);
        assertStringIncludes(doctor.stdout, "bwrap:    does not work:");
        assertStringIncludes(doctor.stdout, "landlock: works (kernel ABI");
        assertStringIncludes(doctor.stdout, "commands run with: landlock");

        const doctorForced = await runWithoutBwrap(["doctor"], sandbox, {
          ...env,
          SKIFF_SANDBOX_BACKEND: "bwrap",
        });
        assertEquals(doctorForced.code, 1, doctorForced.stdout);
        assertStringIncludes(doctorForced.stdout, "none: 'bwrap' is forced");
      });
    },
  });
}
