/**
 * The Landlock exec step is skiff's hidden subcommand `__landlock-exec`, so a
 * compiled binary (which has no sandbox/landlock/exec.ts to `deno run`) runs it as
 * itself, and from source `deno run main.ts` gets only the step's flags.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { fileURLToPath } from "node:url";
import { HIDDEN_STEPS } from "../../main.ts";
import { LAZY_MODULES } from "../../scripts/compile.ts";
import { LANDLOCK_EXEC_STEP, landlockExecArgv } from "../../src/sandbox/landlock/launcher.ts";
import { landlockPlan } from "../../src/sandbox/landlock/rules.ts";
import { probeLandlock } from "../../src/sandbox/choose.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
const plan = landlockPlan({
  settings: { mode: "read-only", workspace: "/", addDirs: [], network: false, envNames: [] },
  abi: 1,
  hidden: [],
});

Deno.test("hidden step: a compiled binary runs the exec step as itself, with no deno run", () => {
  const argv = landlockExecArgv(plan, ["/bin/sh", "-c", "true"], "/opt/skiff/skiff", true);
  assertEquals(argv, [
    "/opt/skiff/skiff",
    LANDLOCK_EXEC_STEP,
    JSON.stringify(plan),
    "/bin/sh",
    "-c",
    "true",
  ]);
});

Deno.test("hidden step: from source, deno run main.ts gets only the step's own flags", () => {
  const argv = landlockExecArgv({ ...plan, tempRoot: "/var/tmp/x" }, ["/bin/true"], "deno", false);
  const entry = argv.indexOf(MAIN);
  assert(entry > 0, `main.ts is the entry point: ${argv.join(" ")}`);
  assertEquals(argv.slice(0, 2), ["deno", "run"]);
  const flags = argv.slice(2, entry).filter((word) => word.startsWith("--allow"));
  assertEquals(flags, ["--allow-ffi", "--allow-env", "--allow-read", "--allow-write=/var/tmp/x"]);
  assertEquals(argv.slice(entry + 1, entry + 2), [LANDLOCK_EXEC_STEP]);
  assertEquals(argv.at(-1), "/bin/true");
});

Deno.test("hidden step: main.ts dispatches it, and the compiled binary includes its module", async () => {
  const module = HIDDEN_STEPS.get(LANDLOCK_EXEC_STEP);
  assertEquals(module, "./src/sandbox/landlock/exec.ts");
  for (const [name, specifier] of HIDDEN_STEPS) {
    assert(name.startsWith("__"), `a hidden step's name starts with __: ${name}`);
    const relative = specifier.replace(/^\.\//, "");
    assert(LAZY_MODULES.includes(relative), `scripts/compile.ts includes ${relative}`);
    const loaded = await import(new URL(`../../${relative}`, import.meta.url).href);
    assertEquals(typeof loaded.runStep, "function", `${relative} exports runStep`);
  }
});

Deno.test("hidden step: from source, main.ts __landlock-exec without a plan exits 2 with its usage", async () => {
  const argv = landlockExecArgv(plan, [], Deno.execPath(), false).slice(0, -1); // no plan either
  const output = await new Deno.Command(argv[0], { args: argv.slice(1), stdin: "null" }).output();
  assertEquals(output.code, 2);
  assertStringIncludes(new TextDecoder().decode(output.stderr), "usage: skiff __landlock-exec");
});

Deno.test({
  name: "hidden step: from source, the probe runs through main.ts and reports the kernel's ABI",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const seen: string[][] = [];
    const abi = await probeLandlock(async (argv) => {
      seen.push(argv);
      const output = await new Deno.Command(argv[0], { args: argv.slice(1), stdin: "null" })
        .output();
      const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      return { ok: output.success, stdout: decode(output.stdout), stderr: decode(output.stderr) };
    });
    assert(seen[0].includes(MAIN) && seen[0].includes(LANDLOCK_EXEC_STEP), seen[0].join(" "));
    if (typeof abi === "string") {
      console.warn(
        `\n!!! Landlock does not work here (${abi}): only the dispatch was checked !!!\n`,
      );
      assert(!abi.includes("usage:"), `the step got its plan: ${abi}`);
    } else assert(abi >= 1, `ABI ${abi}`);
  },
});

const BINARY = Deno.env.get("SKIFF_BIN");
if (!BINARY) {
  console.warn(
    "\n!!! SKIPPED landlock_hidden_step_test compiled case: set SKIFF_BIN to a binary built by " +
      "`deno task compile` to run the exec step in it !!!\n",
  );
}

Deno.test({
  name: "hidden step: a compiled binary runs its own exec step and restricts the command",
  ignore: !BINARY || Deno.build.os !== "linux",
  async fn() {
    const argv = landlockExecArgv(
      { ...plan, probe: true },
      ["/bin/sh", "-c", "true"],
      BINARY!,
      true,
    );
    const output = await new Deno.Command(argv[0], { args: argv.slice(1), stdin: "null" }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
    assert(/landlock-abi=\d+/.test(stdout), stdout);
  },
});
