/**
 * `skiff run` with no model and no API key names both at once (exit 2,
 * nothing sent), so a newcomer fixes them in one go; with one missing, that
 * one alone.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff } from "../../support/cli.ts";

const NO_MODEL = "no model set. Pass --model <name>, set SKIFF_MODEL";
const NO_KEY = "no API key for https://api.openai.com/v1. Set OPENAI_API_KEY";

Deno.test("skiff run reports every missing prerequisite at once", async () => {
  for (
    const [env, expected] of [
      [{}, [NO_MODEL, NO_KEY]],
      [{ SKIFF_MODEL: "some-model" }, [NO_KEY]],
      [{ OPENAI_API_KEY: "sk-test" }, [NO_MODEL]],
    ] as [Record<string, string>, string[]][]
  ) {
    const sandbox = await makeSandbox(env);
    try {
      const result = await runSkiff(["run", "hello"], sandbox);
      assertEquals(result.code, 2, result.stderr);
      for (const line of expected) assertStringIncludes(result.stderr, line);
      for (const line of [NO_MODEL, NO_KEY].filter((line) => !expected.includes(line))) {
        assertEquals(result.stderr.includes(line), false, result.stderr);
      }
      if (expected.length === 2) {
        assertStringIncludes(result.stderr, "2 things are missing before skiff can run:");
      }
    } finally {
      await sandbox.cleanup();
    }
  }
});
