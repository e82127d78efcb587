/**
 * The person's side of an MCP OAuth test: the user's global config, and
 * `skiff mcp login` run with the test in the browser's place.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { type Sandbox, spawnSkiff } from "../support/cli.ts";

/** Writes the user's global config with these MCP servers. */
export async function userServers(sandbox: Sandbox, mcp: Record<string, unknown>): Promise<void> {
  await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify({ mcp }));
}

/**
 * Runs `skiff mcp login <args>` as a person would, the test in the browser's
 * place: reads the URL skiff prints, fetches it, and follows the
 * authorization server's redirect to skiff's loopback address.
 */
export async function loginAsBrowser(
  sandbox: Sandbox,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; authorizeUrl: string }> {
  const child = spawnSkiff(["mcp", "login", ...args], sandbox);
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  let authorizeUrl = "";
  const deadline = AbortSignal.timeout(60_000);
  while (!authorizeUrl) {
    if (deadline.aborted) throw new Error(`no authorization URL within 60 s:\n${stdout}`);
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
    authorizeUrl = stdout.match(/^\s+(http\S+\/authorize\?\S+)$/m)?.[1] ?? "";
  }
  if (authorizeUrl) {
    const approved = await fetch(authorizeUrl, { redirect: "manual" });
    await approved.body?.cancel();
    assertEquals(approved.status, 302, "the authorization server approves and redirects");
    const back = await fetch(approved.headers.get("location")!);
    assertStringIncludes(await back.text(), "logged in", "skiff's loopback page");
  }
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    stdout += chunk.value;
  }
  const { code } = await child.status;
  return { code, stdout, stderr: await stderr, authorizeUrl };
}
