/**
 * `skiff mcp serve` runs a client's calls as they come and stops one the
 * client cancels: through the SDK client, a `sleep` call is in flight while
 * a `read` answers at once; the AbortSignal given to callTool sends
 * `notifications/cancelled`, and the sleep's process is gone soon after,
 * long before it would have ended.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox } from "../../support/cli.ts";
import { mcpServeClient, toolText } from "../../support/mcp_serve_client.ts";

// An odd length, so no other process on the machine is taken for ours.
const SLEEP = "sleep 27.31";

/** Process ids whose command line is exactly `sleep 27.31`. */
function sleepers(): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline === "sleep\0" + "27.31\0") found.push(Number(entry.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test("mcp serve: a read answers while a sleep runs; cancelling the sleep stops its process", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "quick\n");
    const { client, close } = await mcpServeClient(sandbox, ["--allow", `bash(${SLEEP})`]);
    try {
      const controller = new AbortController();
      let settled = false;
      const sleeping = client.callTool(
        { name: "bash", arguments: { command: SLEEP } },
        undefined,
        { signal: controller.signal, timeout: 60_000 },
      ).finally(() => (settled = true));
      sleeping.catch(() => {});
      try {
        await until("the sleep started", () => sleepers().length > 0, 15_000);
      } catch (error) {
        const early = settled ? toolText(await sleeping) : "";
        if (/sandbox|bwrap|unsandboxed/i.test(early)) {
          throw new Error(`no OS sandbox here, so this cannot be shown: ${early}`);
        }
        throw error;
      }

      const started = Date.now();
      const read = await client.callTool({ name: "read", arguments: { file_path: "a.txt" } });
      assertStringIncludes(toolText(read), "quick");
      assert(Date.now() - started < 5000, `the read waited ${Date.now() - started} ms`);
      assertEquals(settled, false, "the sleep should still be running");

      controller.abort("the user changed their mind");
      let rejected = false;
      try {
        await sleeping;
      } catch {
        rejected = true;
      }
      assert(rejected, "the cancelled call must not resolve");
      await until("the sleep's process is gone", () => sleepers().length === 0, 10_000);

      const after = await client.callTool({ name: "read", arguments: { file_path: "a.txt" } });
      assertStringIncludes(toolText(after), "quick");
    } finally {
      await close();
    }
  } finally {
    await sandbox.cleanup();
  }
});
