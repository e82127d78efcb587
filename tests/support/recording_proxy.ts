/**
 * An HTTP proxy on 127.0.0.1 that forwards nothing: it records the first
 * line of each request (`CONNECT dl.deno.land:443 HTTP/1.1`) and answers 502.
 * Set as HTTPS_PROXY for a child, it shows every host the child tried to
 * reach over the network, and lets none of them be reached.
 */

export interface RecordingProxy {
  url: string;
  /** First lines of the requests so far. */
  requests: string[];
  /** Settles at the first request. */
  seen: Promise<void>;
  close(): Promise<void>;
}

/** Starts a recording proxy on a free port of 127.0.0.1. */
export function startRecordingProxy(): RecordingProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  let first: () => void = () => {};
  const seen = new Promise<void>((resolve) => first = resolve);
  const decoder = new TextDecoder();
  const serving = (async () => {
    for await (const connection of listener) {
      const buffer = new Uint8Array(1024);
      const read = await connection.read(buffer).catch(() => null);
      requests.push(decoder.decode(buffer.subarray(0, read ?? 0)).split("\r\n")[0]);
      first();
      await connection.write(new TextEncoder().encode("HTTP/1.1 502 Bad Gateway\r\n\r\n"))
        .catch(() => {});
      connection.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    requests,
    seen,
    async close() {
      listener.close();
      await serving.catch(() => {});
    },
  };
}
