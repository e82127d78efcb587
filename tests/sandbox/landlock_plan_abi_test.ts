/**
 * The exec step refuses a plan made for another Landlock ABI than the
 * kernel's: the ABI comes from a probe that may be cached, and a plan made
 * for an older ABI would leave newer rights (network, IPC scopes) unhandled.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { landlockExecArgv } from "../../src/sandbox/landlock/launcher.ts";
import { landlockPlan } from "../../src/sandbox/landlock/rules.ts";
import { probeLandlock } from "../../src/sandbox/choose.ts";
import { exists as existsSync } from "../../src/definitions/agents/discovery.ts";

async function run(argv: string[]) {
  const output = await new Deno.Command(argv[0], { args: argv.slice(1), stdin: "null" }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return {
    ok: output.success,
    code: output.code,
    stdout: decode(output.stdout),
    stderr: decode(output.stderr),
  };
}

const kernelAbi = await probeLandlock(run);
if (typeof kernelAbi === "string") {
  console.warn(
    `\n!!! landlock_plan_abi_test NOT RUN: Landlock does not work here (${kernelAbi})\n`,
  );
}

Deno.test({
  name:
    "exec step: a plan made for another ABI than the kernel's is refused, and the command does not run",
  ignore: typeof kernelAbi === "string",
}, async () => {
  const abi = kernelAbi as number;
  const workspace = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-abi-" });
  try {
    const marker = path.join(workspace, "ran");
    const settings = {
      mode: "workspace-write" as const,
      workspace,
      addDirs: [],
      network: false,
      envNames: [],
    };
    const command = ["/bin/sh", "-c", `echo x > ${marker}`];
    for (const other of [abi - 1, abi + 1].filter((value) => value >= 1)) {
      const plan = { ...landlockPlan({ settings, abi: other, hidden: [] }), abi: other };
      const result = await run(landlockExecArgv(plan, command));
      assertEquals(result.code, 126, result.stderr);
      assertStringIncludes(result.stderr, `made for Landlock ABI ${other}`);
      assertStringIncludes(result.stderr, "skiff doctor");
      assert(!existsSync(marker), `the command ran under a plan for ABI ${other}`);
    }
    // Control: the kernel's own ABI runs the command.
    const result = await run(
      landlockExecArgv(landlockPlan({ settings, abi, hidden: [] }), command),
    );
    assertEquals(result.code, 0, result.stderr);
    assert(existsSync(marker), "the command ran under the kernel's ABI");
  } finally {
    Deno.removeSync(workspace, { recursive: true });
  }
});
