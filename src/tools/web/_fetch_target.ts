/**
 * Where one webfetch hop really goes: the URL's host resolved (A and AAAA)
 * before anything connects, judged local or not by the address it resolved
 * to, and a client that connects to exactly that address, so a DNS answer
 * that changes between the check and the connection (DNS rebinding) cannot
 * move the request (docs/security.md, "webfetch").
 */
import { ToolError } from "../tool.ts";
import { isLoopbackName, localAddressReason, ownAddresses, parseIpv4 } from "./_local_address.ts";
import { connectTunnel } from "./_connect_tunnel.ts";

/** Resolves a host name to its addresses; injected so tests need no DNS. */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<string[]>;

export interface FetchTarget {
  /** What the host resolved to; the literal itself for an IP address. */
  addresses: string[];
  /** Why the hop reaches a local address, in words; null when it does not. */
  local: string | null;
}

/** The URL's host as written for a resolver: no brackets around IPv6. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

function isIpLiteral(url: URL): boolean {
  return url.hostname.startsWith("[") || parseIpv4(url.hostname) !== null;
}

/**
 * Why `url` reaches a local address, judged from its text alone (an IP
 * literal, `localhost`): what `declare` can say before any lookup.
 */
export function localByText(url: URL, own: readonly string[] = ownAddresses()): string | null {
  if (isLoopbackName(url.hostname)) return `${url.hostname} is a loopback name`;
  if (!isIpLiteral(url)) return null;
  const what = localAddressReason(bareHost(url), own);
  return what && `${bareHost(url)} is ${what}`;
}

/** The system's answer for A and AAAA (Deno.resolveDns reads /etc/hosts too). */
export const systemResolver: HostResolver = async (hostname, signal) => {
  const answers = await Promise.allSettled([
    Deno.resolveDns(hostname, "A", { signal }),
    Deno.resolveDns(hostname, "AAAA", { signal }),
  ]);
  const addresses = answers.flatMap((answer) => answer.status === "fulfilled" ? answer.value : []);
  if (addresses.length) return addresses;
  const reasons = answers.map((answer) => answer.status === "rejected" ? answer.reason : null);
  const notCapable = reasons.find((reason) => reason instanceof Deno.errors.NotCapable);
  if (notCapable) throw notCapable;
  signal.throwIfAborted();
  throw new ToolError(
    "failed",
    `Could not resolve ${hostname}: ${reasons[0]?.message ?? "no address"}.`,
    "Check the host name; it may not exist, or DNS is unreachable from here.",
  );
};

/**
 * Resolve `url`'s host and judge every address it resolved to. `proxied`:
 * fetch goes through a proxy, which may resolve names skiff cannot; a name
 * that does not resolve here is then judged by its text alone.
 */
export async function resolveTarget(
  url: URL,
  resolve: HostResolver,
  signal: AbortSignal,
  options: { proxied?: boolean; own?: readonly string[] } = {},
): Promise<FetchTarget> {
  const own = options.own ?? ownAddresses();
  let addresses: string[];
  try {
    addresses = isIpLiteral(url) ? [bareHost(url)] : await resolve(bareHost(url), signal);
  } catch (error) {
    if (!options.proxied || !(error instanceof ToolError)) throw error;
    addresses = [];
  }
  const byName = localByText(url, own);
  if (byName) return { addresses, local: byName };
  for (const address of addresses) {
    const what = localAddressReason(address, own);
    if (what) return { addresses, local: `${url.hostname} resolves to ${address}, ${what}` };
  }
  return { addresses, local: null };
}

/** A client bound to the judged address, and what to close once the body is read. */
export interface PinnedClient {
  client: Deno.HttpClient;
  close(): void;
}

/**
 * A client that connects to the first address judged: for http, its TCP
 * transport is that address; for https, a CONNECT tunnel on loopback opens
 * to that address (`_connect_tunnel.ts`), and TLS runs inside it with the
 * URL's name. Undefined when there is no address (an injected resolver
 * that answered none) or fetch goes through the user's proxy.
 */
export function pinnedClient(
  url: URL,
  target: FetchTarget,
  proxied = false,
): PinnedClient | undefined {
  // Behind a proxy the proxy connects: pinning would bypass the user's network setup.
  if (proxied || target.addresses.length === 0) return undefined;
  const address = target.addresses[0].replace(/%.*$/, "");
  if (url.protocol === "http:") {
    // The tcp transport reads its host as a URI authority: IPv6 goes in brackets.
    const hostname = address.includes(":") ? `[${address}]` : address;
    const port = Number(url.port || 80);
    const client = Deno.createHttpClient({ proxy: { transport: "tcp", hostname, port } });
    return { client, close: () => client.close() };
  }
  const port = Number(url.port || 443);
  const tunnel = connectTunnel(`${url.hostname}:${port}`, address, port);
  const client = Deno.createHttpClient({ proxy: { url: tunnel.url } });
  return {
    client,
    close: () => {
      client.close();
      tunnel.close();
    },
  };
}
