/**
 * An MCP server behind OAuth on 127.0.0.1, written for the tests: protected
 * resource metadata, an authorization server on a port of its own (another
 * host to Deno's network permission) — metadata, dynamic client
 * registration, `/authorize` that approves at once and redirects with a
 * code, `/token` for authorization codes with PKCE and for refresh tokens —
 * and streamable HTTP at `/mcp` that answers only a live access token (401
 * with `WWW-Authenticate` otherwise). It records every Authorization header
 * the MCP endpoint saw, so a test can tell who was given a token.
 *
 * `recordingServer` is the attacker's side: an MCP URL that answers 401 and
 * logs the Authorization header of each request it gets.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

export interface OAuthMcpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  origin: string;
  /** The authorization server's origin: the same address, another port. */
  authOrigin: string;
  /** Authorization headers `/mcp` received, in order ("" for none). */
  seen: string[];
  /** Token requests by grant type. */
  grants: { authorization_code: number; refresh_token: number };
  registrations: number;
  /** Makes every access token issued so far expired, as if its time had run out. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource?: string;
}

function base64url(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Starts the server; `ttlSeconds` is the `expires_in` of each access token. */
export function startOAuthMcpServer(ttlSeconds = 3600): OAuthMcpServer {
  const clients = new Map<string, string[]>();
  const codes = new Map<string, Code>();
  const access = new Map<string, { expiresAt: number }>();
  const refresh = new Map<string, string>();
  const seen: string[] = [];
  const grants = { authorization_code: 0, refresh_token: 0 };
  let registrations = 0;
  let origin = "";
  let authOrigin = "";

  const issue = (clientId: string) => {
    const accessToken = `at-${crypto.randomUUID()}`;
    const refreshToken = `rt-${crypto.randomUUID()}`;
    access.set(accessToken, { expiresAt: Date.now() + ttlSeconds * 1000 });
    refresh.set(refreshToken, clientId);
    return json({
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: ttlSeconds,
      refresh_token: refreshToken,
      scope: "mcp",
    });
  };

  const token = async (request: Request) => {
    const form = new URLSearchParams(await request.text());
    const grant = form.get("grant_type");
    if (grant === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
      if (
        !code || code.clientId !== form.get("client_id") ||
        code.redirectUri !== form.get("redirect_uri") || base64url(digest) !== code.challenge
      ) {
        return json({ error: "invalid_grant", error_description: "bad code or verifier" }, 400);
      }
      grants.authorization_code++;
      return issue(code.clientId);
    }
    if (grant === "refresh_token") {
      const clientId = refresh.get(form.get("refresh_token") ?? "");
      if (!clientId || clientId !== form.get("client_id")) {
        return json({ error: "invalid_grant", error_description: "unknown refresh token" }, 400);
      }
      // Rotated: the old refresh token is spent.
      refresh.delete(form.get("refresh_token")!);
      grants.refresh_token++;
      return issue(clientId);
    }
    return json({ error: "unsupported_grant_type" }, 400);
  };

  const authorize = (url: URL) => {
    const clientId = url.searchParams.get("client_id") ?? "";
    const redirectUri = url.searchParams.get("redirect_uri") ?? "";
    if (!clients.get(clientId)?.includes(redirectUri)) {
      return new Response("unknown client or redirect", { status: 400 });
    }
    if (url.searchParams.get("code_challenge_method") !== "S256") {
      return new Response("PKCE S256 required", { status: 400 });
    }
    const code = crypto.randomUUID();
    codes.set(code, {
      clientId,
      redirectUri,
      challenge: url.searchParams.get("code_challenge") ?? "",
      resource: url.searchParams.get("resource") ?? undefined,
    });
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", url.searchParams.get("state") ?? "");
    return new Response(null, { status: 302, headers: { location: back.href } });
  };

  const mcp = async (request: Request) => {
    const header = request.headers.get("authorization") ?? "";
    seen.push(header);
    const live = access.get(header.replace(/^Bearer /, ""));
    if (!live || live.expiresAt <= Date.now()) {
      return new Response(JSON.stringify({ error: "invalid_token" }), {
        status: 401,
        headers: {
          "www-authenticate":
            `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        },
      });
    }
    const server = new McpServer({ name: "tracker", version: "1" });
    server.registerTool(
      "whoami",
      { description: "Says the caller holds a live token." },
      () => ({ content: [{ type: "text", text: "a caller with a live token" }] }),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  };

  const resourceRoutes = (request: Request, url: URL) => {
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
      case "/.well-known/oauth-protected-resource":
        return json({ resource: `${origin}/mcp`, authorization_servers: [authOrigin] });
      case "/mcp":
        return mcp(request);
      default:
        return new Response("not found", { status: 404 });
    }
  };
  const authRoutes = (request: Request, url: URL) => {
    switch (url.pathname) {
      case "/.well-known/oauth-authorization-server":
        return json({
          issuer: authOrigin,
          authorization_endpoint: `${authOrigin}/authorize`,
          token_endpoint: `${authOrigin}/token`,
          registration_endpoint: `${authOrigin}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "/register":
        return request.json().then((metadata) => {
          registrations++;
          const clientId = `client-${crypto.randomUUID()}`;
          clients.set(clientId, metadata.redirect_uris ?? []);
          return json({ ...metadata, client_id: clientId }, 201);
        });
      case "/authorize":
        return authorize(url);
      case "/token":
        return token(request);
      default:
        return new Response("not found", { status: 404 });
    }
  };
  const listen = (routes: (request: Request, url: URL) => Response | Promise<Response>) =>
    Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => routes(request, new URL(request.url)),
    );
  const server = listen(resourceRoutes);
  const authServer = listen(authRoutes);
  origin = `http://127.0.0.1:${server.addr.port}`;
  authOrigin = `http://127.0.0.1:${authServer.addr.port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    authOrigin,
    seen,
    grants,
    get registrations() {
      return registrations;
    },
    expireAccessTokens() {
      for (const entry of access.values()) entry.expiresAt = 0;
    },
    close: async () => {
      await server.shutdown();
      await authServer.shutdown();
    },
  };
}

/** The attacker's MCP URL: answers 401 to everything and logs each Authorization header. */
export function recordingServer(): { url: string; seen: string[]; close(): Promise<void> } {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(request.headers.get("authorization") ?? "");
    return new Response("unauthorized", { status: 401 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    seen,
    close: () => server.shutdown(),
  };
}
