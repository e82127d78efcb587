/**
 * Where one webfetch hop really goes: the URL's host resolved (A and AAAA)
 * before anything connects, judged local or not by the address it resolved
 * to, and, for plain http, a client that connects to exactly that address,
 * so a DNS answer that changes between the check and the connection (DNS
 * rebinding) cannot move the request. https is left to fetch's own
 * resolution: a changed answer there meets a TLS check of the name, which a
 * local service does not pass without a certificate trusted for the
 * attacker's name (docs/security.md, "webfetch").
 */
import { ToolError } from "../tool.ts";
import { isLoopbackName, localAddressReason, ownAddresses, parseIpv4 } from "./_local_address.ts";

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

/** Resolve `url`'s host and judge every address it resolved to. */
export async function resolveTarget(
  url: URL,
  resolve: HostResolver,
  signal: AbortSignal,
  own: readonly string[] = ownAddresses(),
): Promise<FetchTarget> {
  const addresses = isIpLiteral(url) ? [bareHost(url)] : await resolve(bareHost(url), signal);
  const byName = localByText(url, own);
  if (byName) return { addresses, local: byName };
  for (const address of addresses) {
    const what = localAddressReason(address, own);
    if (what) return { addresses, local: `${url.hostname} resolves to ${address}, ${what}` };
  }
  return { addresses, local: null };
}

/**
 * A client that connects to the address judged, for an http URL; undefined
 * for https (see the module comment) or when the runtime cannot make one.
 * The caller closes it once the body is read.
 */
export function pinnedClient(url: URL, target: FetchTarget): Deno.HttpClient | undefined {
  if (url.protocol !== "http:" || target.addresses.length === 0) return undefined;
  const port = Number(url.port || 80);
  const address = target.addresses[0];
  // The tcp transport reads its host as a URI authority: IPv6 goes in brackets.
  const hostname = address.includes(":") ? `[${address.replace(/%.*$/, "")}]` : address;
  return Deno.createHttpClient({ proxy: { transport: "tcp", hostname, port } });
}
