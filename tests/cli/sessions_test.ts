/**
 * Session ids on the command line: an id prefix that matches more than one
 * session is the user's mistake to correct (exit 2 with the candidates), not
 * an internal error.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";

Deno.test("an ambiguous session prefix is a usage error naming the matches", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a\n");
    for (let i = 0; i < 2; i++) {
      const made = await runSkiff(["tool", "read", '{"file_path":"a.txt"}'], sandbox);
      assertEquals(made.code, 0, made.stderr);
    }
    for (const args of [["sessions", "show", "ses_"], ["undo", "--session", "ses_"]]) {
      const result = await runSkiff(args, sandbox);
      assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assertStringIncludes(result.stderr, "matches more than one session");
      assertStringIncludes(result.stderr, "Give more of the id");
      assert(!result.stderr.includes("internal error"), result.stderr);
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("sessions list -n takes a positive whole number, or says so", async () => {
  const sandbox = await makeSandbox();
  try {
    for (const bad of ["abc", "0", "-3"]) {
      const result = await runSkiff(["sessions", "list", "-n", bad], sandbox);
      assertEquals(result.code, 2, `-n ${bad}: ${result.stdout}${result.stderr}`);
      assertStringIncludes(result.stderr, "positive whole number");
    }
  } finally {
    await sandbox.cleanup();
  }
});
