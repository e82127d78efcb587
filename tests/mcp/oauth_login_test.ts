/**
 * OAuth for remote MCP servers, through the real CLI against an
 * OAuth-protected MCP server on 127.0.0.1 (oauth_server.ts): before a login
 * the server is reported as needing one, naming `skiff mcp login` and
 * `headers`, without any registration or wait; `skiff mcp login` prints the
 * URL (the test plays the browser: it follows the authorization redirect
 * back to skiff's loopback listener), stores the tokens 0600 in the data
 * folder, and the server's tools are listed; an expired access token is
 * refreshed on its own, in `skiff mcp list` and in a session's engine
 * (`skiff tool`); `skiff mcp logout` deletes the login.
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";
import { oauthRecordFile } from "../../src/mcp/oauth_store.ts";
import { startOAuthMcpServer } from "./oauth_server.ts";
import { loginAsBrowser, userServers } from "./oauth_cli.ts";

Deno.test("mcp login: needs-login message, browser login, tokens 0600, tools listed, refresh on expiry, logout", async () => {
  const sandbox = await makeSandbox();
  const server = startOAuthMcpServer();
  try {
    await userServers(sandbox, { tracker: { type: "http", url: server.url } });

    // Not logged in: reported, with both ways out; nothing registered, nothing waited for.
    const before = await runSkiff(["mcp", "list"], sandbox);
    assertEquals(before.code, 1, before.stdout + before.stderr);
    assertStringIncludes(before.stdout, "tracker (http, config): failed: it needs a login");
    assertStringIncludes(before.stdout, "skiff mcp login tracker");
    assertStringIncludes(before.stdout, '"headers": {"Authorization": "Bearer …"}');
    assertEquals(server.registrations, 0, "a session registers no client");

    const login = await loginAsBrowser(sandbox, ["tracker"]);
    assertEquals(login.code, 0, login.stdout + login.stderr);
    const authorize = new URL(login.authorizeUrl);
    assertEquals(authorize.origin, server.authOrigin);
    assertEquals(authorize.searchParams.get("code_challenge_method"), "S256");
    assertMatch(
      authorize.searchParams.get("redirect_uri")!,
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
    assertStringIncludes(login.stdout, "Logged in.");
    assertStringIncludes(login.stdout, 'MCP server "tracker" offers 1 tool.');
    assertEquals(server.registrations, 1, "dynamic client registration");
    assertEquals(server.grants.authorization_code, 1);

    const file = oauthRecordFile(sandbox.dataDir, server.url);
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);
    const stored = JSON.parse(await Deno.readTextFile(file));
    assertEquals(stored.serverUrl, server.url);
    assert(stored.tokens.access_token && stored.tokens.refresh_token, "both tokens stored");

    const listed = await runSkiff(["mcp", "list"], sandbox);
    assertEquals(listed.code, 0, listed.stdout + listed.stderr);
    assertStringIncludes(listed.stdout, "tracker (http, config): connected");
    assertStringIncludes(listed.stdout, "tracker_whoami");
    assertEquals(server.grants.refresh_token, 0, "a live token is used as it is");

    // The access token runs out: the next start refreshes it and saves the new pair.
    server.expireAccessTokens();
    const refreshed = await runSkiff(["mcp", "list"], sandbox);
    assertEquals(refreshed.code, 0, refreshed.stdout + refreshed.stderr);
    assertStringIncludes(refreshed.stdout, "tracker_whoami");
    assertEquals(server.grants.refresh_token, 1);
    const after = JSON.parse(await Deno.readTextFile(file));
    assert(after.tokens.access_token !== stored.tokens.access_token, "a new access token is kept");
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600, "still 0600 after the refresh");

    // In a session the engine's Worker does the same: its network permission takes in the
    // authorization server of a stored login (another host:port than the MCP server's).
    server.expireAccessTokens();
    const called = await runSkiff(
      ["tool", "--allow", "tracker_whoami", "tracker_whoami", "{}"],
      sandbox,
    );
    assertEquals(called.code, 0, called.stdout + called.stderr);
    assertStringIncludes(called.stdout, "a caller with a live token");
    assertEquals(server.grants.refresh_token, 2);

    const logout = await runSkiff(["mcp", "logout", "tracker"], sandbox);
    assertEquals(logout.code, 0, logout.stdout + logout.stderr);
    assertStringIncludes(logout.stdout, "Logged out");
    await Deno.stat(file).then(
      () => assert(false, "the login file is gone after logout"),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );
    const gone = await runSkiff(["mcp", "list"], sandbox);
    assertEquals(gone.code, 1);
    assertStringIncludes(gone.stdout, "it needs a login");
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
});

Deno.test("mcp login: a server that asks for no login stores nothing; one without OAuth names headers", async () => {
  const sandbox = await makeSandbox();
  const open = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("{}", { status: 200 }),
  );
  const bare = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("no", { status: 401 }),
  );
  try {
    await userServers(sandbox, {
      open: { type: "http", url: `http://127.0.0.1:${open.addr.port}/mcp` },
      bare: { type: "http", url: `http://127.0.0.1:${bare.addr.port}/mcp` },
    });
    const notNeeded = await runSkiff(["mcp", "login", "open"], sandbox);
    assertEquals(notNeeded.code, 0, notNeeded.stdout + notNeeded.stderr);
    assertStringIncludes(notNeeded.stdout, "asks for no login. Nothing was stored.");
    const noOAuth = await runSkiff(["mcp", "login", "bare", "--timeout", "5"], sandbox);
    assertEquals(noOAuth.code, 1, noOAuth.stdout + noOAuth.stderr);
    assertStringIncludes(noOAuth.stderr, "no OAuth authorization server answered");
    assertStringIncludes(noOAuth.stderr, '"headers": {"Authorization": "Bearer …"}');
    const unknown = await runSkiff(["mcp", "login", "nosuch"], sandbox);
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.stderr, 'no MCP server named "nosuch"');
    await Deno.stat(path.join(sandbox.dataDir, "mcp-oauth")).then(
      async (info) =>
        assert(
          info.isDirectory && (await Array.fromAsync(Deno.readDir(
                path.join(sandbox.dataDir, "mcp-oauth"),
              ))).length === 0,
        ),
      () => {},
    );
  } finally {
    await open.shutdown();
    await bare.shutdown();
    await sandbox.cleanup();
  }
});

Deno.test("mcp login: an SSE entry needs a login too; an entry's own Authorization header is sent instead of a stored login", async () => {
  const sandbox = await makeSandbox();
  const server = startOAuthMcpServer();
  try {
    await userServers(sandbox, {
      tracker: { type: "http", url: server.url },
      viaSse: { type: "sse", url: server.url, connect_timeout_ms: 3000 },
      withToken: { type: "http", url: server.url, headers: { Authorization: "Bearer wrong" } },
    });
    const before = await runSkiff(["mcp", "list"], sandbox);
    assertStringIncludes(before.stdout, "viaSse (sse, config): failed: it needs a login");
    assertStringIncludes(before.stdout, "skiff mcp login viaSse");

    const login = await loginAsBrowser(sandbox, ["tracker"]);
    assertEquals(login.code, 0, login.stdout + login.stderr);
    const listed = await runSkiff(["mcp", "list"], sandbox);
    assertStringIncludes(listed.stdout, "tracker (http, config): connected");
    // Same URL, so a login is stored for it; the entry's own token is what it sends.
    assertStringIncludes(
      listed.stdout,
      'withToken (http, config): failed: it answered 401 Unauthorized to the "Authorization" header of its entry',
    );
    assert(server.seen.includes("Bearer wrong"), "the entry's own header was sent");
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
});
