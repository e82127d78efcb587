/**
 * scripts/bench_sandbox.ts keeps its workspace in a temporary folder outside
 * the current folder (it used to leave `.bench-sandbox-*` folders in the repo
 * root) and removes it however the bench ends, Ctrl-C included.
 */
import { fileURLToPath } from "node:url";
import { assertEquals } from "../support/assert.ts";
import { BENCH_TEMP_PREFIX } from "../../scripts/bench_sandbox.ts";

const SCRIPT = fileURLToPath(new URL("../../scripts/bench_sandbox.ts", import.meta.url));

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("bench_sandbox interrupted by Ctrl-C leaves nothing in the current folder or its temp parent", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "skiff-bench-cwd-" });
  // Its own parent for the temp folder, so other runs cannot blur the check.
  const parent = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "skiff-bench-parent-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--unstable-worker-options", SCRIPT],
      cwd,
      env: { SKIFF_BENCH_TMP: parent },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    // Wait for the workspace to exist (the bench is then under way), then press Ctrl-C.
    const deadline = Date.now() + 60_000;
    while ((await listing(parent)).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const during = await listing(parent);
    assertEquals(during.length, 1, "the bench's workspace never appeared in its temp parent");
    assertEquals(during[0].startsWith(BENCH_TEMP_PREFIX), true, during[0]);
    assertEquals(await listing(cwd), [], "the bench wrote into the current folder");
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill("SIGINT");
    const { code, stderr } = await child.output();
    assertEquals(code, 130, `the bench ended otherwise: ${new TextDecoder().decode(stderr)}`);
    assertEquals(await listing(parent), [], "the workspace was left behind");
    assertEquals(await listing(cwd), []);
  } finally {
    await Deno.remove(cwd, { recursive: true });
    await Deno.remove(parent, { recursive: true });
  }
});
