/**
 * The login files: filed under the server URL as parsed (its spelling of
 * scheme, host and default port aside; path, query, port and user part
 * count), never read back for another URL, 0600; the engine Worker may reach
 * a stored login's authorization server and token endpoint, and only those.
 * A session's provider never starts a login: it says one is needed.
 */
import * as path from "node:path";
import { assert, assertEquals, assertNotEquals, assertThrows } from "../support/assert.ts";
import {
  oauthHosts,
  oauthKey,
  oauthRecordFile,
  readOAuthRecord,
  removeOAuthRecord,
  writeOAuthRecord,
} from "../../src/mcp/oauth_store.ts";
import { McpLoginNeeded, SessionOAuthProvider } from "../../src/mcp/oauth_provider.ts";
import { engineNetHosts } from "../../src/host/worker_client.ts";
import { testSpec } from "../engine/_spec.ts";

Deno.test("oauthKey: the same server however spelled; anything that changes the target is another key", () => {
  const key = oauthKey("https://mcp.example/mcp");
  assertEquals(oauthKey("HTTPS://MCP.example:443/mcp#part"), key);
  for (
    const other of [
      "https://mcp.example/mcp/",
      "https://mcp.example/mcp?x=1",
      "https://mcp.example:8443/mcp",
      "http://mcp.example/mcp",
      "https://mcp.example.evil/mcp",
      "https://mcp.example@evil.example/mcp",
      "https://evil.example/https://mcp.example/mcp",
    ]
  ) {
    assertNotEquals(oauthKey(other), key, other);
  }
});

Deno.test("login files: 0600, read back only for their own URL, removed by logout", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-oauth-" });
  try {
    const url = "https://mcp.example/mcp";
    const file = writeOAuthRecord(dataDir, {
      serverUrl: oauthKey(url),
      tokens: { access_token: "a", token_type: "Bearer" },
    });
    assertEquals(file, oauthRecordFile(dataDir, url));
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(path.dirname(file))).mode! & 0o077, 0, "folder private too");
    assertEquals(readOAuthRecord(dataDir, url)?.tokens?.access_token, "a");
    assertEquals(readOAuthRecord(dataDir, "https://evil.example/mcp"), undefined);
    // A file put at another URL's name (copied, or planted) is not taken for that URL.
    await Deno.copyFile(file, oauthRecordFile(dataDir, "https://evil.example/mcp"));
    assertEquals(readOAuthRecord(dataDir, "https://evil.example/mcp"), undefined);
    assertEquals(readOAuthRecord(dataDir, "not a url"), undefined);
    assert(removeOAuthRecord(dataDir, url));
    assertEquals(removeOAuthRecord(dataDir, url), false);
    assertEquals(readOAuthRecord(dataDir, url), undefined);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a session's provider never starts a login: it throws McpLoginNeeded naming login and headers", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-oauth-" });
  try {
    const provider = new SessionOAuthProvider({
      serverName: "tracker",
      serverUrl: "https://mcp.example/mcp",
      dataDir,
    });
    const error = assertThrows(() => provider.discoveryState(), McpLoginNeeded);
    assert(error.message.includes("skiff mcp login tracker"), error.message);
    assert(error.message.includes('"headers": {"Authorization": "Bearer …"}'), error.message);
    assertThrows(() => provider.clientInformation(), McpLoginNeeded);
    assertThrows(() => provider.redirectToAuthorization(), McpLoginNeeded);
    assertEquals(provider.tokens(), undefined);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the engine's network: a stored login adds its authorization server and token endpoint", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-oauth-" });
  try {
    const spec = testSpec({
      dataDir,
      mcp: {
        enabled: true,
        env: {},
        blocked: [],
        userServers: {
          tracker: { url: "https://mcp.example/mcp" },
          other: { url: "https://other.example/mcp" },
        },
      },
    });
    assertEquals(engineNetHosts(spec), ["127.0.0.1:1", "mcp.example", "other.example"]);
    const record = {
      serverUrl: oauthKey("https://mcp.example/mcp"),
      discovery: {
        authorizationServerUrl: "https://auth.example/",
        authorizationServerMetadata: { token_endpoint: "https://tokens.example:8443/token" },
      },
    };
    writeOAuthRecord(dataDir, record);
    assertEquals(oauthHosts(record), ["auth.example", "tokens.example:8443"]);
    assertEquals(engineNetHosts(spec), [
      "127.0.0.1:1",
      "mcp.example",
      "auth.example",
      "tokens.example:8443",
      "other.example",
    ]);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
