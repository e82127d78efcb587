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

Deno.test("a data folder that cannot be created is the same clean exit 2 for run, tool and sessions", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", SKIFF_MODEL: "m" });
  try {
    const aFile = `${sandbox.root}/not-a-folder`;
    await Deno.writeTextFile(aFile, "x");
    // Root ignores folder permissions, so the cases are a file in the way, at the folder or above it.
    for (const dataDir of [aFile, `${aFile}/skiff`]) {
      for (
        const args of [
          ["run", "hello"],
          ["tool", "read", '{"file_path":"."}'],
          ["sessions", "list"],
        ]
      ) {
        const result = await runSkiff(args, sandbox, { env: { SKIFF_DATA_DIR: dataDir } });
        const what = `${args[0]} with SKIFF_DATA_DIR=${dataDir}: ${result.stderr}`;
        assertEquals(result.code, 2, what);
        assert(!result.stderr.includes("internal error"), what);
        assertStringIncludes(result.stderr, `cannot create the data folder ${dataDir}`);
        assertStringIncludes(result.stderr, "Set SKIFF_DATA_DIR to a writable folder");
      }
    }
  } finally {
    await sandbox.cleanup();
  }
});
