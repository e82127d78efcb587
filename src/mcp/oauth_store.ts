/**
 * Where an MCP server's OAuth login is kept: one file per server URL in the
 * data folder (`mcp-oauth/<sha256 of the URL>.json`, mode 0600, written
 * through the one atomic writer). The URL is the key, never the server's
 * name: a project that gives its own server the name of one the user logged
 * in to, with another URL, finds no login for it (docs/security.md, "MCP
 * servers and their tools").
 */
import * as path from "../lib/path.ts";
import { sha256Hex } from "../lib/sha256.ts";
import { writeFileAtomicSync } from "../lib/atomic_write.ts";

/** What one login holds, as the SDK's auth flow handed it over (plain JSON). */
export interface OAuthRecord {
  /** The server URL the login was made for, as `oauthKey` spells it. */
  serverUrl: string;
  /** The loopback address the authorization server sends the browser back to. */
  redirectUrl?: string;
  /** The client registration (`client_id`, the authorization server it is bound to). */
  clientInformation?: Record<string, unknown>;
  /** `access_token`, `refresh_token`, `expires_in`, `issuer`… */
  tokens?: Record<string, unknown>;
  /** When `tokens` were saved (ms since the epoch): `expires_in` counts from here. */
  tokensSavedAt?: number;
  /** Where the authorization server is and what its metadata said, pinned at login. */
  discovery?: Record<string, unknown>;
}

/** The folder of the login files inside the data folder. */
export const OAUTH_FOLDER = "mcp-oauth";

/**
 * The key a login is filed under: the URL parsed (so the spelling of the
 * scheme, host and default port does not matter) without its fragment,
 * which never reaches the server. Anything else — path, query, port,
 * user part — counts.
 */
export function oauthKey(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.hash = "";
  return url.href;
}

/** The file that holds the login for `serverUrl`. */
export function oauthRecordFile(dataDir: string, serverUrl: string): string {
  return path.join(dataDir, OAUTH_FOLDER, `${sha256Hex(oauthKey(serverUrl))}.json`);
}

/**
 * The stored login for `serverUrl`, or undefined when there is none (or the
 * file cannot be read, or is not one skiff wrote for exactly this URL).
 * Needs read access to the data folder.
 */
export function readOAuthRecord(dataDir: string, serverUrl: string): OAuthRecord | undefined {
  let file: string;
  try {
    file = oauthRecordFile(dataDir, serverUrl);
  } catch {
    return undefined; // Not a URL: no login can be filed under it.
  }
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch {
    // Missing or unreadable: no login, and the server says it needs one; a session never fails on it.
    return undefined;
  }
  try {
    const record = JSON.parse(text) as OAuthRecord;
    // The name is a digest; the URL inside is checked too, so a record is never used for another.
    return record?.serverUrl === oauthKey(serverUrl) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Stores the login for its URL, readable by the user alone. Needs write access to the data folder. */
export function writeOAuthRecord(dataDir: string, record: OAuthRecord): string {
  const file = oauthRecordFile(dataDir, record.serverUrl);
  Deno.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const bytes = new TextEncoder().encode(JSON.stringify(record, null, 2) + "\n");
  writeFileAtomicSync(file, bytes, 0o600, 0o600);
  return file;
}

/** Deletes the login for `serverUrl`; whether there was one. */
export function removeOAuthRecord(dataDir: string, serverUrl: string): boolean {
  try {
    Deno.removeSync(oauthRecordFile(dataDir, serverUrl));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * The hosts a stored login's refresh reaches (the authorization server and
 * its token endpoint), for the engine Worker's network permission.
 */
export function oauthHosts(record: OAuthRecord | undefined): string[] {
  const discovery = record?.discovery ?? {};
  const metadata = (discovery.authorizationServerMetadata ?? {}) as Record<string, unknown>;
  const hosts: string[] = [];
  for (const value of [discovery.authorizationServerUrl, metadata.token_endpoint]) {
    if (typeof value !== "string") continue;
    try {
      hosts.push(new URL(value).host);
    } catch {
      // Not a URL: the refresh fails and says so; no host is opened for it.
    }
  }
  return [...new Set(hosts)];
}
