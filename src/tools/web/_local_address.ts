/**
 * Which addresses are "local" to webfetch: the machine itself (loopback,
 * 0.0.0.0, its own interfaces' addresses), the networks behind it (RFC 1918,
 * CGNAT, unique-local IPv6) and link-local ones, where cloud metadata
 * services answer (169.254.169.254, fd00:ec2::254). A page or a model must
 * not reach these under `--yes` or a broad rule (docs/security.md,
 * "webfetch"). Pure but for `ownAddresses`, which asks the system.
 */

/** `[first address, prefix length, what it is]` for IPv4. */
const IPV4_LOCAL: readonly [string, number, string][] = [
  ["0.0.0.0", 8, "a this-host address (0.0.0.0 reaches the machine itself)"],
  ["10.0.0.0", 8, "a private (RFC 1918) address"],
  ["100.64.0.0", 10, "a carrier-grade NAT (shared, RFC 6598) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address (cloud metadata services answer there)"],
  ["172.16.0.0", 12, "a private (RFC 1918) address"],
  ["192.0.0.0", 24, "an IETF protocol address (some clouds' metadata services answer there)"],
  ["192.168.0.0", 16, "a private (RFC 1918) address"],
  ["198.18.0.0", 15, "a network-benchmark address (used inside private networks)"],
  ["224.0.0.0", 3, "a multicast, reserved or broadcast address"],
];

/** `[first address, prefix length, what it is]` for IPv6 (IPv4 inside IPv6 is judged as IPv4). */
const IPV6_LOCAL: readonly [string, number, string][] = [
  ["::", 128, "the unspecified address (it reaches the machine itself)"],
  ["::1", 128, "a loopback address"],
  ["fc00::", 7, "a unique-local IPv6 address (a private network)"],
  ["fe80::", 10, "a link-local IPv6 address"],
  ["fec0::", 10, "a site-local IPv6 address (a private network)"],
  ["ff00::", 8, "a multicast IPv6 address"],
];

/** The four bytes of a dotted IPv4 address, or null. */
export function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : NaN));
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : null;
}

/** The sixteen bytes of an IPv6 address (`::`, a dotted tail, a `%zone`), or null. */
export function parseIpv6(text: string): number[] | null {
  const address = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!address.includes(":")) return null;
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === "") return [];
    const words: number[] = [];
    const pieces = half.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) words.push(parseInt(piece, 16));
      else return null;
    }
    return words;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const words = [...head, ...Array(missing).fill(0), ...tail];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

function inPrefix(bytes: number[], first: number[], length: number): boolean {
  for (let bit = 0; bit < length; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3] & mask) !== (first[bit >> 3] & mask)) return false;
  }
  return true;
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), or null. */
function embeddedIpv4(bytes: number[]): number[] | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated; not :: or ::1).
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zeros(0, 12) && !zeros(12, 15)) return bytes.slice(12);
  // 64:ff9b::a.b.c.d (NAT64) and 2002:aabb:ccdd:: (6to4).
  if (
    bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)
  ) {
    return bytes.slice(12);
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return null;
}

/**
 * What makes `address` (an IP literal, brackets allowed) local, in words;
 * null for a public address or a text that is no IP address. `own` are the
 * machine's own addresses (see ownAddresses).
 */
export function localAddressReason(address: string, own: readonly string[] = []): string | null {
  const plain = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "").toLowerCase();
  const v4 = parseIpv4(plain);
  const v6 = v4 ? null : parseIpv6(plain);
  if (!v4 && !v6) return null;
  const inner = v4 ?? embeddedIpv4(v6!);
  if (inner) {
    for (const [first, length, what] of IPV4_LOCAL) {
      if (inPrefix(inner, parseIpv4(first)!, length)) return what;
    }
  }
  if (v6) {
    for (const [first, length, what] of IPV6_LOCAL) {
      if (inPrefix(v6, parseIpv6(first)!, length)) return what;
    }
  }
  const key = (v4 ?? v6!).join(".");
  for (const mine of own) {
    const bytes = parseIpv4(mine) ?? parseIpv6(mine);
    if (bytes && bytes.join(".") === key) return "one of this machine's own addresses";
  }
  return null;
}

/**
 * A host name every resolver sends to the machine itself (RFC 6761:
 * `localhost` and names under it), judged without asking DNS.
 */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * The addresses of this machine's network interfaces; empty when the
 * system does not say (no `sys` permission for it), in which case the
 * fixed ranges above still hold loopback and the private networks.
 */
export function ownAddresses(): string[] {
  try {
    return Deno.networkInterfaces().map((face) => face.address);
  } catch {
    return [];
  }
}
