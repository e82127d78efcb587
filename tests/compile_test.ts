/**
 * The compiled binary. `deno compile` needs Deno's runtime (denort), which
 * our CI machines cannot download; where DENORT_BIN points at one, this
 * builds dist/skiff and runs it for real. Elsewhere it says loudly that it
 * did not run. (Set SKIFF_BIN to a built binary to run every CLI test
 * against it.)
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "./support/assert.ts";
import { compile, runtimeFlags } from "../scripts/compile.ts";
import { makeSandbox, runInWorkspace } from "./support/cli.ts";
import { startMockServer } from "./support/mock_server.ts";

const denort = Deno.env.get("DENORT_BIN");
if (!denort) {
  console.warn(
    "SKIPPED compile tests: DENORT_BIN is not set, so `deno compile` cannot get its runtime here.",
  );
}

Deno.test("the compile task uses exactly the flags of the skiff task", async () => {
  const flags = await runtimeFlags();
  assertEquals(flags, [
    "--quiet",
    "--allow-all",
    "--unstable-worker-options",
    "--no-prompt",
    "--v8-flags=--max-semi-space-size=1,--expose-gc,--no-lazy",
  ]);
});

Deno.test({
  name: "the compiled binary answers --version and runs a prompt against the mock",
  ignore: !denort,
  async fn() {
    const dir = await Deno.makeTempDir();
    const mock = startMockServer([{ text: "compiled answer" }]);
    const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "m" });
    try {
      const binary = await compile(path.join(dir, "skiff"));
      const output = await runInWorkspace(binary, ["run", "hello"], sandbox);
      assertEquals(output.code, 0, output.stderr);
      assertStringIncludes(output.stdout, "compiled answer");
    } finally {
      await mock.close();
      await sandbox.cleanup();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
