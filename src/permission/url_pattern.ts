/**
 * How a rule's pattern is read for a URL key (`webfetch`): as
 * `[scheme://]host[:port][/path]`, each part matched against the same part
 * of the parsed URL — never against the URL's text, where a query
 * (`/x?.docs.example/`) or userinfo (`docs.example@127.0.0.1`) could
 * imitate a host. Only `*` is a wildcard; `?` is literal, as it starts a
 * query. Pure, like the rest of the rule vocabulary.
 */

/** Permission keys whose subjects are URLs. */
export const URL_KEYS: ReadonlySet<string> = new Set(["webfetch"]);

interface UrlPattern {
  /** Wildcard for the scheme without `:`; undefined: http or https. */
  scheme?: string;
  /** Lower-case host name pattern (IPv6 without brackets); see hostMatch. */
  host: string;
  /** Wildcard for the port; undefined: the URL scheme's default port. */
  port?: string;
  /** Wildcard for path plus query (`/docs/*`); undefined: any path. */
  path?: string;
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

const parsedPatterns = new Map<string, UrlPattern | null>();

/**
 * Whether `pattern` allows `url`. `*` alone matches every URL, even one that
 * does not parse; any other pattern matches only an http(s) URL whose scheme,
 * host, port and path each match their part of the pattern. A pattern that
 * cannot be read as a URL pattern matches nothing.
 */
export function urlPatternMatch(pattern: string, url: string): boolean {
  if (pattern.trim() === "*") return true;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (!parsedPatterns.has(pattern)) parsedPatterns.set(pattern, parseUrlPattern(pattern));
  const rule = parsedPatterns.get(pattern);
  if (!rule) return false;
  const scheme = target.protocol.slice(0, -1);
  if (
    rule.scheme === undefined
      ? !(target.protocol in DEFAULT_PORTS)
      : !starMatch(rule.scheme, scheme)
  ) {
    return false;
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!hostMatch(rule.host, host)) return false;
  const port = target.port || DEFAULT_PORTS[target.protocol] || "";
  const wantedPort = rule.port ?? DEFAULT_PORTS[target.protocol];
  if (wantedPort === undefined || !starMatch(wantedPort, port)) return false;
  return rule.path === undefined || starMatch(rule.path, target.pathname + target.search);
}

/**
 * Whether `pattern` allows `url` and names its host and port: no `*` in the
 * host, and a port written out or left to the scheme's own. Only such a rule
 * opens a local address to webfetch (`*`, `*.example` or `host:*` do not).
 */
export function namesHostAndPort(pattern: string, url: string): boolean {
  const rule = parseUrlPattern(pattern);
  if (!rule || rule.host.includes("*") || rule.port === "*") return false;
  return urlPatternMatch(pattern, url);
}

/** `https://*.docs.example:8443/api/*` → its parts; null when it is not a URL pattern. */
export function parseUrlPattern(pattern: string): UrlPattern | null {
  let rest = pattern.trim();
  let scheme: string | undefined;
  const schemeEnd = rest.indexOf("://");
  if (schemeEnd >= 0) {
    scheme = rest.slice(0, schemeEnd).toLowerCase();
    if (!/^[a-z*][a-z0-9+.*-]*$/.test(scheme)) return null;
    rest = rest.slice(schemeEnd + 3);
  }
  const slash = rest.indexOf("/");
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? undefined : normalisePath(rest.slice(slash));
  let host = authority;
  let port: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(authority);
  if (bracketed) {
    host = bracketed[1];
    port = bracketed[2];
  } else if (authority.includes(":")) {
    host = authority.slice(0, authority.indexOf(":"));
    port = authority.slice(authority.indexOf(":") + 1);
  }
  if (!host || host.includes("@") || (port !== undefined && !/^(\d+|\*)$/.test(port))) return null;
  return { scheme, host: normaliseHost(host.toLowerCase()), port, path };
}

/** A literal host as the URL parser writes it (`0x7f.1` → `127.0.0.1`, IDN → punycode). */
function normaliseHost(host: string): string {
  if (host.includes("*")) return host;
  try {
    const shown = host.includes(":") ? `[${host}]` : host;
    return new URL(`http://${shown}/`).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return host;
  }
}

/** A pattern path as the URL parser writes a path (`..` resolved, spaces encoded). */
function normalisePath(path: string): string {
  try {
    const url = new URL(path, "http://pattern.invalid");
    return url.pathname + url.search;
  } catch {
    return path;
  }
}

const hostRegexes = new Map<string, RegExp>();

/**
 * A host pattern, label by label: a label that is `*` alone stands for one or
 * more whole labels (`*.docs.example`), and a `*` inside a label stays inside
 * it, so `docs.example*` never reaches `docs.example.evil.test`.
 */
function hostMatch(pattern: string, host: string): boolean {
  let regex = hostRegexes.get(pattern);
  if (!regex) {
    const labels = pattern.split(".").map((label) =>
      label === "*" ? "[^.]+(?:\\.[^.]+)*" : label.split("*").map(escapeRegex).join("[^.]*")
    );
    regex = new RegExp(`^${labels.join("\\.")}$`);
    hostRegexes.set(pattern, regex);
  }
  return regex.test(host);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

const starRegexes = new Map<string, RegExp>();

/** Whole-string match where `*` is any run of characters and everything else is literal. */
function starMatch(pattern: string, text: string): boolean {
  if (pattern === "*") return true;
  let regex = starRegexes.get(pattern);
  if (!regex) {
    const source = pattern.split("*").map(escapeRegex).join("[\\s\\S]*");
    regex = new RegExp(`^${source}$`);
    starRegexes.set(pattern, regex);
  }
  return regex.test(text);
}
