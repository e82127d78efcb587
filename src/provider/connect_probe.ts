/**
 * Tells a slow server from one that cannot be reached at all. fetch has no
 * connect timeout, so a request to a host that silently drops packets waits
 * for the operating system (minutes). When a request has had no answer for a
 * moment, the provider opens a plain TCP connection to the same host and
 * port: if that cannot connect either, the endpoint is unreachable and the
 * request is abandoned; if it connects, the server is just thinking.
 */

/** Resolves true when `url`'s host accepts a TCP connection within `timeoutMs`, or when that cannot be known. */
export type ConnectProbe = (url: URL, timeoutMs: number, signal?: AbortSignal) => Promise<boolean>;

/** The environment names that send fetch through a proxy (webfetch reads them too). */
export const PROXY_VARIABLES: readonly string[] = [
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "ALL_PROXY",
  "all_proxy",
];

/**
 * Whether fetch goes through a proxy. Behind one, the endpoint's host is not
 * what fetch connects to; probing it would mislead, and webfetch cannot
 * choose the address it connects to.
 */
export function proxyConfigured(): boolean {
  try {
    return PROXY_VARIABLES.some((name) => Boolean(Deno.env.get(name)));
  } catch {
    return true; // no permission to look: assume the worst case for probing and stay out of the way
  }
}

/** The default probe: Deno.connect to the endpoint's host and port. Needs --allow-net for it. */
export const tcpConnectProbe: ConnectProbe = async (url, timeoutMs, signal) => {
  if (proxyConfigured()) return true;
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const connection = await Deno.connect({
      hostname,
      port,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    connection.close();
    return true;
  } catch (error) {
    if (signal?.aborted) return true; // cancelled, not unreachable
    // Without permission to open a socket we learn nothing; let the request decide.
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return true;
    }
    return false;
  }
};
