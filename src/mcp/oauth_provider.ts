/**
 * The SDK's `OAuthClientProvider` over the login files of `oauth_store.ts`.
 * A session's provider ("session") only uses a login made before: it sends
 * the stored access token, lets the SDK refresh it when the server refuses
 * it (saving the new tokens), and where a person would have to log in it
 * throws `McpLoginNeeded` at once — it never registers a client, never opens
 * a listener, never waits for a browser. `skiff mcp login` uses the "login"
 * provider: a fresh authorization (dynamic client registration when offered,
 * authorization code with PKCE, a loopback redirect), saved when it succeeds.
 */
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { oauthKey, type OAuthRecord, readOAuthRecord, writeOAuthRecord } from "./oauth_store.ts";

/** A server asked for a login that this session cannot do; the message says what the user can. */
export class McpLoginNeeded extends Error {
  constructor(readonly serverName: string, readonly why: string) {
    super(
      `it needs a login (${why}). At a terminal run \`skiff mcp login ${serverName}\`; ` +
        `or give it a token in its entry: "headers": {"Authorization": "Bearer …"}`,
    );
    this.name = "McpLoginNeeded";
  }
}

/** What both providers need. */
export interface StoredOAuthOptions {
  /** The server's name, for messages. */
  serverName: string;
  serverUrl: string;
  dataDir: string;
}

/** The provider a session's connection uses: stored logins only, refreshed as needed. */
export class SessionOAuthProvider implements OAuthClientProvider {
  /** Set once the server refused what is stored: the session no longer offers it. */
  private refused = false;

  constructor(private readonly options: StoredOAuthOptions) {}

  /** Read on each use: a login made in another terminal during the session is picked up. */
  private record(): OAuthRecord | undefined {
    return this.refused ? undefined : readOAuthRecord(this.options.dataDir, this.options.serverUrl);
  }

  private needed(why?: string): McpLoginNeeded {
    const stored = oauthKey(this.options.serverUrl);
    return new McpLoginNeeded(
      this.options.serverName,
      why ??
        (this.refused
          ? `the server refused the login stored for ${stored}`
          : `it answered 401 Unauthorized and no login is stored for ${stored}`),
    );
  }

  get redirectUrl(): string {
    // Refreshing needs none, but the SDK takes a provider without one for a machine-to-machine client.
    return this.record()?.redirectUrl ?? "http://127.0.0.1/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataFor(this.redirectUrl);
  }

  discoveryState(): OAuthDiscoveryState {
    // Before any request to a third party: with no login, nothing is discovered or registered.
    const discovery = this.record()?.discovery;
    if (!discovery) throw this.needed();
    return discovery as unknown as OAuthDiscoveryState;
  }

  saveDiscoveryState(): void {
    // Pinned at login; a session does not move it.
  }

  clientInformation(): OAuthClientInformationMixed {
    const client = this.record()?.clientInformation;
    if (!client) throw this.needed();
    return client as unknown as OAuthClientInformationMixed;
  }

  tokens(): OAuthTokens | undefined {
    return this.record()?.tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    const record = this.record();
    if (!record) throw this.needed();
    writeOAuthRecord(this.options.dataDir, {
      ...record,
      tokens: { ...tokens },
      tokensSavedAt: Date.now(),
    });
  }

  redirectToAuthorization(): never {
    throw this.needed(
      "the stored login has expired or was refused, and could not be refreshed",
    );
  }

  saveCodeVerifier(): never {
    throw this.needed("the stored login has expired or was refused");
  }

  codeVerifier(): never {
    throw this.needed("the stored login has expired or was refused");
  }

  invalidateCredentials(): void {
    // The file stays (another session may have refreshed it, and login replaces it);
    // this session stops offering what the server refused.
    this.refused = true;
  }
}

/** Where `skiff mcp login` is at, for the caller. */
export interface LoginProviderOptions extends StoredOAuthOptions {
  /** The loopback callback, `http://127.0.0.1:<port>/callback`. */
  redirectUrl: string;
  /** The `state` the callback must carry back. */
  state: string;
  /** Called once with the URL the person opens. */
  onAuthorizationUrl(url: URL): void;
}

/**
 * The provider of one `skiff mcp login`: starts from no tokens, reuses a
 * stored registration only when it was made for this same redirect address,
 * and writes the record once tokens arrive.
 */
export class LoginOAuthProvider implements OAuthClientProvider {
  private client?: Record<string, unknown>;
  private discovery?: Record<string, unknown>;
  private verifier?: string;
  private saved?: Record<string, unknown>;
  /** Where the record was written, once it was. */
  file?: string;

  constructor(private readonly options: LoginProviderOptions) {
    const stored = readOAuthRecord(options.dataDir, options.serverUrl);
    const uris = stored?.clientInformation?.redirect_uris;
    if (Array.isArray(uris) && uris.includes(options.redirectUrl)) {
      this.client = stored!.clientInformation;
    }
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataFor(this.options.redirectUrl);
  }

  state(): string {
    return this.options.state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery as OAuthDiscoveryState | undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    if (!state.authorizationServerMetadata) {
      throw new Error(
        `no OAuth authorization server answered for it (no metadata at ${state.authorizationServerUrl}/.well-known/oauth-authorization-server)`,
      );
    }
    this.discovery = structuredClone(state) as unknown as Record<string, unknown>;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = { ...information };
  }

  tokens(): OAuthTokens | undefined {
    return this.saved as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = { ...tokens };
    this.file = writeOAuthRecord(this.options.dataDir, {
      serverUrl: oauthKey(this.options.serverUrl),
      redirectUrl: this.options.redirectUrl,
      clientInformation: this.client,
      tokens: this.saved,
      tokensSavedAt: Date.now(),
      discovery: this.discovery,
    });
  }

  redirectToAuthorization(url: URL): void {
    this.options.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no authorization was started");
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}

/** What skiff registers itself as: a public client (no secret) on a loopback redirect. */
function clientMetadataFor(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: "skiff",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}
