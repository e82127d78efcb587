/**
 * A one-connection HTTP CONNECT proxy on loopback that opens its tunnel to
 * one address fixed in advance, whatever name the request carries. fetch
 * is handed it as the proxy of an https hop, so TLS (the name checked
 * against the certificate, end to end) runs inside a connection to the
 * very address webfetch judged, and a second DNS answer cannot move it.
 */

/** How much of the CONNECT request is read at most, and how long it may take. */
const MAX_HEAD_BYTES = 8 * 1024;
const HEAD_TIMEOUT_MS = 10_000;

export interface ConnectTunnel {
  /** `http://127.0.0.1:<port>`: the proxy URL for fetch's client. */
  url: string;
  /** Stops listening and ends the tunnel, if one is open. */
  close(): void;
}

/**
 * Listen on loopback for one CONNECT to `authority` (`host:port` as fetch
 * writes it) and tunnel it to `address:port`. Any other request, or a
 * second connection, is refused.
 */
export function connectTunnel(authority: string, address: string, port: number): ConnectTunnel {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const track = (conn: Deno.Conn) => {
    open.add(conn);
    return conn;
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      listener.close();
    } catch {
      // Closed after its one connection.
    }
    for (const conn of open) {
      try {
        conn.close();
      } catch {
        // Closed by the other side.
      }
    }
  };
  (async () => {
    let client: Deno.Conn;
    try {
      client = track(await listener.accept());
      listener.close();
    } catch {
      return;
    }
    try {
      const head = await readHead(client);
      if (head?.split("\r\n")[0].toLowerCase() !== `connect ${authority.toLowerCase()} http/1.1`) {
        await client.write(new TextEncoder().encode("HTTP/1.1 403 Forbidden\r\n\r\n"));
        return close();
      }
      const upstream = track(await Deno.connect({ hostname: address, port }));
      await client.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      await Promise.all([
        client.readable.pipeTo(upstream.writable).catch(() => {}),
        upstream.readable.pipeTo(client.writable).catch(() => {}),
      ]);
    } catch {
      // The hop fails on fetch's side, with fetch's own error.
    }
    close();
  })();
  return { url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`, close };
}

/** The request head up to its blank line; null past the size or time bound, or at the end. */
async function readHead(conn: Deno.Conn): Promise<string | null> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(MAX_HEAD_BYTES);
  let head = "";
  const timer = setTimeout(() => conn.close(), HEAD_TIMEOUT_MS);
  try {
    while (!head.includes("\r\n\r\n")) {
      if (head.length >= MAX_HEAD_BYTES) return null;
      const read = await conn.read(buffer);
      if (read === null) return null;
      head += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    return head;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
