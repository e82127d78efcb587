/**
 * An https hop connects to the address webfetch judged, not to whatever
 * fetch's own lookup would answer: `pinned.test` resolves nowhere but
 * through the injected resolver, yet the page comes back from the local TLS
 * server, its certificate checked against that name (a child process
 * trusts a test CA through DENO_CERT). The tunnel refuses a CONNECT to any
 * other name, and a second connection.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { connectTunnel } from "../../../src/tools/web/_connect_tunnel.ts";
import { hasOpenssl, testCertificates } from "../../support/test_certificates.ts";

if (!hasOpenssl) {
  console.warn(
    "SKIPPED: openssl is not on PATH; the https pinning test cannot make its certificates.",
  );
}

const CHILD = `
import { webfetchTool } from ${
  JSON.stringify(new URL("../../../src/tools/web/webfetch.ts", import.meta.url).href)
};
const [url] = Deno.args;
const ctx = {
  fetch: globalThis.fetch,
  signal: new AbortController().signal,
  resolveHost: () => Promise.resolve(["127.0.0.1"]),
  authorize: () => Promise.resolve(),
};
try {
  const result = await webfetchTool.execute({ url, format: "text" }, ctx);
  console.log(JSON.stringify({ ok: true, output: result.output }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error?.message ?? error) }));
}
`;

Deno.test({
  name: "an https hop is tunnelled to the judged address, and TLS checks the URL's name inside it",
  ignore: !hasOpenssl,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "skiff-pin-" });
    const certificates = await testCertificates(dir, "pinned.test");
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen() {},
      cert: certificates.cert,
      key: certificates.key,
    }, () => new Response("pinned page", { headers: { "content-type": "text/plain" } }));
    try {
      const child = path.join(dir, "child.ts");
      await Deno.writeTextFile(child, CHILD);
      const run = async (url: string) => {
        const output = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--allow-all",
            "--no-prompt",
            "--config",
            new URL("../../../deno.json", import.meta.url).pathname,
            child,
            url,
          ],
          env: { DENO_CERT: certificates.caFile },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(output.stdout).trim();
        assert(text, new TextDecoder().decode(output.stderr));
        return JSON.parse(text) as { ok: boolean; output?: string; error?: string };
      };
      const pinned = await run(`https://pinned.test:${server.addr.port}/`);
      assertEquals(pinned, { ok: true, output: "pinned page" });
      // The certificate is still checked against the URL's name, inside the tunnel.
      const other = await run(`https://other.test:${server.addr.port}/`);
      assertEquals(other.ok, false);
      assertStringIncludes(other.error ?? "", "other.test");
    } finally {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

async function exchange(port: number, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(request));
  const buffer = new Uint8Array(1024);
  const read = await conn.read(buffer);
  conn.close();
  return new TextDecoder().decode(buffer.subarray(0, read ?? 0));
}

Deno.test("the tunnel refuses a CONNECT to another name, and takes one connection only", async () => {
  const refusing = connectTunnel("pinned.test:443", "127.0.0.1", 9);
  const port = Number(new URL(refusing.url).port);
  assertStringIncludes(await exchange(port, "CONNECT evil.test:443 HTTP/1.1\r\n\r\n"), "403");
  refusing.close();
  let second = "";
  try {
    second = await exchange(port, "CONNECT pinned.test:443 HTTP/1.1\r\n\r\n");
  } catch (error) {
    second = String(error);
  }
  assert(!second.includes("200"), `a second connection was tunnelled: ${second}`);
});
