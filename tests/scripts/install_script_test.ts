/**
 * scripts/install.ts writes the `skiff` command for `deno task install` and
 * the GitHub Action: the flags come from deno.json's `skiff` task, and the
 * script passes every word through to Deno as it was, whatever the paths hold.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals, assertStringIncludes, assertThrows } from "../support/assert.ts";
import { skiffTaskFlags, wrapperScript } from "../../scripts/install.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

Deno.test("install: the command gets exactly the flags of deno.json's skiff task", async () => {
  const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
  const flags = skiffTaskFlags(config);
  assertEquals(
    `DENO_NO_UPDATE_CHECK=1 deno run ${flags.join(" ")} main.ts`,
    config.tasks.skiff,
  );
  assertStringIncludes(flags.join(" "), "--v8-flags=");
});

Deno.test("install: a skiff task of another shape is refused, naming it", () => {
  for (
    const task of [
      "deno run main.ts --flag",
      "node main.ts",
      "deno run --config x.json main.ts",
      undefined,
    ]
  ) {
    assertThrows(() => skiffTaskFlags({ tasks: { skiff: task } }), Error, `"skiff" task`);
  }
});

Deno.test("install: the command hands Deno each word as it was, with the update check off", async () => {
  const folder = await Deno.makeTempDir({ prefix: "skiff-install-" });
  try {
    // A stand-in for Deno that prints its arguments and the one variable.
    const fakeDeno = path.join(folder, "fake deno's");
    await Deno.writeTextFile(
      fakeDeno,
      '#!/bin/sh\nprintf "%s\\n" "check=$DENO_NO_UPDATE_CHECK"\nfor a in "$@"; do printf "%s\\n" "$a"; done\n',
      { mode: 0o755 },
    );
    const root = "/clone with 'quotes' and $dollar";
    const command = path.join(folder, "skiff");
    await Deno.writeTextFile(command, wrapperScript(root, fakeDeno, ["--allow-all", "--x=a b"]), {
      mode: 0o755,
    });
    const output = await new Deno.Command(command, {
      args: ["run", "two words", "$HOME"],
      env: { PATH: "/usr/bin:/bin" },
      clearEnv: true,
    }).output();
    assertEquals(new TextDecoder().decode(output.stdout).split("\n").slice(0, -1), [
      "check=1",
      "run",
      "--allow-all",
      "--x=a b",
      "--config",
      `${root}/deno.json`,
      `${root}/main.ts`,
      "run",
      "two words",
      "$HOME",
    ]);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
