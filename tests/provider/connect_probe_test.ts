/** The TCP probe that tells an unreachable endpoint from a slow one. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { tcpConnectProbe } from "../../src/provider/connect_probe.ts";

const proxied = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
  .some((name) => Deno.env.get(name));
if (proxied) {
  console.warn(
    "connect_probe_test: skipped, a proxy variable is set (the probe stands aside then)",
  );
}

Deno.test({
  name: "a listening port is reachable, a closed one is not",
  ignore: proxied,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const accepting = listener.accept().then((connection) => connection.close(), () => {});
    assertEquals(await tcpConnectProbe(new URL(`http://127.0.0.1:${port}/v1`), 2_000), true);
    await accepting;
    listener.close();
    assertEquals(await tcpConnectProbe(new URL(`http://127.0.0.1:${port}/v1`), 2_000), false);
  },
});

Deno.test({
  name: "without net permission the probe cannot tell, so it does not block the request",
  permissions: { net: false, env: true },
  async fn() {
    assertEquals(await tcpConnectProbe(new URL("http://127.0.0.1:1/v1"), 500), true);
  },
});
