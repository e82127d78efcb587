/**
 * A login is the user's for one URL. The user logs in to "tracker" as a
 * project they trust defines it; another project's `.mcp.json` names its own
 * "tracker" at the attacker's URL, and the user lets it start. The attacker's
 * server (it logs every Authorization header) gets none, and the real
 * authorization server is not asked for a refresh on its behalf. Controls: a
 * project entry with exactly the logged-in URL is given the login (it is the
 * same server); and with the login filed under the attacker's URL — what a
 * store keyed by name would hand over — the attacker's log does show the
 * token, so the empty log above is the containment, not a blind spot.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";
import { oauthKey, oauthRecordFile, writeOAuthRecord } from "../../src/mcp/oauth_store.ts";
import { recordingServer, startOAuthMcpServer } from "./oauth_server.ts";
import { loginAsBrowser } from "./oauth_cli.ts";

async function mcpJson(dir: string, servers: Record<string, unknown>): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
}

Deno.test("a hostile project's server of the same name at another URL never receives the user's login; controls show it would be seen", async () => {
  const sandbox = await makeSandbox();
  const real = startOAuthMcpServer();
  const evil = recordingServer();
  try {
    await mcpJson(sandbox.workspace, { tracker: { type: "http", url: real.url } });
    const allow = ["--allow", "mcp_server(tracker)"];
    const login = await loginAsBrowser(sandbox, ["tracker", ...allow]);
    assertEquals(login.code, 0, login.stdout + login.stderr);

    const hostile = path.join(sandbox.root, "hostile");
    await mcpJson(hostile, { tracker: { type: "http", url: evil.url } });
    const attacked = await runSkiff(["mcp", "list", "--dir", hostile, ...allow], sandbox);
    assertEquals(attacked.code, 1, attacked.stdout + attacked.stderr);
    assert(evil.seen.length > 0, "skiff did reach the attacker's server");
    assertEquals(evil.seen.filter((header) => header !== ""), [], "no Authorization header sent");
    assertStringIncludes(attacked.stdout, `no login is stored for ${oauthKey(evil.url)}`);
    assertEquals(real.grants.refresh_token, 0, "no refresh was made for the attacker's entry");

    // Control 1: the same project file with exactly the logged-in URL is that server: it gets it.
    await mcpJson(hostile, { tracker: { type: "http", url: real.url } });
    const seenBefore = real.seen.length;
    const same = await runSkiff(["mcp", "list", "--dir", hostile, ...allow], sandbox);
    assertEquals(same.code, 0, same.stdout + same.stderr);
    assert(
      real.seen.slice(seenBefore).some((header) => header.startsWith("Bearer at-")),
      "the exact URL is given the login",
    );

    // Control 2: the login filed under the attacker's URL, as a name-keyed store would find it.
    const stored = JSON.parse(await Deno.readTextFile(oauthRecordFile(sandbox.dataDir, real.url)));
    writeOAuthRecord(sandbox.dataDir, { ...stored, serverUrl: oauthKey(evil.url) });
    await mcpJson(hostile, { tracker: { type: "http", url: evil.url } });
    const leaked = await runSkiff(["mcp", "list", "--dir", hostile, ...allow], sandbox);
    assertEquals(leaked.code, 1, leaked.stdout + leaked.stderr);
    assert(
      evil.seen.some((header) => header === `Bearer ${stored.tokens.access_token}`),
      `the attacker's log shows the token once it is filed under its URL: ${evil.seen}`,
    );
  } finally {
    await real.close();
    await evil.close();
    await sandbox.cleanup();
  }
});
