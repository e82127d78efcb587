/**
 * webfetch against a local server on 127.0.0.1: HTML to markdown and text,
 * redirects followed up to five, the 5 MB cap on a streamed body, the
 * timeout, HTTP errors, non-text bodies and what declare reports.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { webfetchTool } from "../../../src/tools/web/webfetch.ts";
import { htmlToMarkdown } from "../../../src/tools/web/_html.ts";
import { type Access, ToolError } from "../../../src/tools/tool.ts";
import { makeWorkspace } from "../_context.ts";

const PAGE = `<!doctype html><html><head><title>Docs</title><style>p{color:red}</style>
<script>var tracking = 1;</script></head><body><h1>Install</h1>
<p>Run <code>skiff</code> &amp; read the <a href="/guide">guide</a>.</p>
<ul><li>fast</li><li>small</li></ul></body></html>`;

async function withServer(fn: (base: string, state: { bigChunksSent: number }) => Promise<void>) {
  const state = { bigChunksSent: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const hop = /^\/r\/(\d+)$/.exec(url.pathname);
    if (hop) {
      const left = Number(hop[1]);
      const next = left === 0 ? "/page" : `/r/${left - 1}`;
      return new Response(null, { status: 302, headers: { location: next } });
    }
    switch (url.pathname) {
      case "/page":
        return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      case "/latin1":
        return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), {
          headers: { "content-type": "text/plain; charset=ISO-8859-1" },
        });
      case "/plain":
        return new Response("just <text>", { headers: { "content-type": "text/plain" } });
      case "/image":
        return new Response(new Uint8Array([137, 80, 78, 71]), {
          headers: { "content-type": "image/png" },
        });
      case "/big": {
        const chunk = new Uint8Array(256 * 1024).fill(97);
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            state.bigChunksSent++;
            if (state.bigChunksSent > 400) controller.close();
            else controller.enqueue(chunk);
          },
        });
        return new Response(body, { headers: { "content-type": "text/plain" } });
      }
      case "/slow":
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return new Response("late");
      default:
        return new Response("missing", { status: 404, statusText: "Not Found" });
    }
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, state);
  } finally {
    await server.shutdown();
  }
}

async function fetchingWorkspace() {
  const ws = await makeWorkspace();
  ws.ctx.fetch = globalThis.fetch;
  return ws;
}

Deno.test("HTML becomes markdown without scripts or styles; text and html formats too", async () => {
  await using ws = await fetchingWorkspace();
  await withServer(async (base) => {
    const markdown = await ws.run(webfetchTool, { url: `${base}/page`, format: "markdown" });
    assertStringIncludes(markdown.output, "# Install");
    // Links come back absolute, so the model can fetch what the page points to.
    assertStringIncludes(markdown.output, `Run \`skiff\` & read the [guide](${base}/guide).`);
    assert(!markdown.output.includes("Docs"), "the head's title is not page text");
    assertStringIncludes(markdown.output, "-   fast");
    assert(!markdown.output.includes("tracking") && !markdown.output.includes("color:red"));
    const text = await ws.run(webfetchTool, { url: `${base}/page`, format: "text" });
    assertStringIncludes(text.output, "Install\n\nRun skiff & read the guide.\n\nfast\nsmall");
    assert(!text.output.includes("<") && !text.output.includes("tracking"));
    const html = await ws.run(webfetchTool, { url: `${base}/page`, format: "html" });
    assertEquals(html.output, PAGE);
    const plain = await ws.run(webfetchTool, { url: `${base}/plain`, format: "markdown" });
    assertEquals(plain.output, "just <text>");
  });
});

Deno.test("five redirects are followed, each one put to the gate; a sixth is refused", async () => {
  await using ws = await fetchingWorkspace();
  const asked: Access[] = [];
  ws.ctx.authorize = (access) => {
    asked.push(access);
    return Promise.resolve();
  };
  await withServer(async (base) => {
    const five = await ws.run(webfetchTool, { url: `${base}/r/4`, format: "text" });
    assertEquals(five.metadata?.url, `${base}/page`);
    assertEquals(asked.map((access) => access.patterns[0]), [
      `${base}/r/3`,
      `${base}/r/2`,
      `${base}/r/1`,
      `${base}/r/0`,
      `${base}/page`,
    ]);
    assertEquals(asked[0].key, "webfetch");
    assertEquals(asked[0].always, [`${base}/*`]);
    const six = await ws.fail(webfetchTool, { url: `${base}/r/5`, format: "text" });
    assertEquals(six.code, "failed");
    assertStringIncludes(six.message, "redirected more than 5 times");
  });
});

Deno.test("a redirect the gate refuses is not fetched, and the refusal says where it led", async () => {
  await using ws = await fetchingWorkspace();
  ws.ctx.authorize = (access) =>
    Promise.reject(
      new ToolError("denied", `Permission denied: webfetch(${access.patterns[0]}).`, "the hint"),
    );
  await withServer(async (base) => {
    const error = await ws.fail(webfetchTool, { url: `${base}/r/0`, format: "text" });
    assertEquals(error.code, "denied");
    assertStringIncludes(error.message, `${base}/r/0 redirected to ${base}/page`);
    assertStringIncludes(error.message, `Permission denied: webfetch(${base}/page)`);
    assertEquals(error.hint, "the hint");
  });
});

Deno.test("with no gate to ask (no authorize in the context), a redirect is not followed", async () => {
  await using ws = await fetchingWorkspace();
  assertEquals(ws.ctx.authorize, undefined);
  await withServer(async (base) => {
    const error = await ws.fail(webfetchTool, { url: `${base}/r/0`, format: "text" });
    assertEquals(error.code, "denied");
    assertStringIncludes(error.message, "not fetched");
    assertStringIncludes(error.hint ?? "", `${base}/page`);
    // The page itself, asked for directly, is fetched.
    const page = await ws.run(webfetchTool, { url: `${base}/page`, format: "text" });
    assertStringIncludes(page.output, "Install");
  });
});

Deno.test("a body over 5 MB is refused and the stream abandoned", async () => {
  await using ws = await fetchingWorkspace();
  await withServer(async (base, state) => {
    const error = await ws.fail(webfetchTool, { url: `${base}/big`, format: "text" });
    assertEquals(error.code, "too_large");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert(state.bigChunksSent < 100, `the server sent ${state.bigChunksSent} chunks of 256 KB`);
  });
});

Deno.test("timeout, HTTP errors, non-text bodies and bad URLs", async () => {
  await using ws = await fetchingWorkspace();
  await withServer(async (base) => {
    const slow = await ws.fail(webfetchTool, {
      url: `${base}/slow`,
      format: "text",
      timeout_ms: 200,
    });
    assertEquals(slow.code, "timeout");
    const missing = await ws.fail(webfetchTool, { url: `${base}/nothing`, format: "text" });
    assertEquals(missing.code, "failed");
    assertStringIncludes(missing.message, "HTTP 404");
    const image = await ws.run(webfetchTool, { url: `${base}/image`, format: "markdown" });
    assertStringIncludes(image.output, "image/png, 4 bytes");
  });
  const refused = await ws.fail(webfetchTool, { url: "http://127.0.0.1:9/x", format: "text" });
  assertEquals(refused.code, "failed");
  assertStringIncludes(refused.hint ?? "", "Check the address");
  const scheme = await ws.fail(webfetchTool, { url: "file:///etc/passwd", format: "text" });
  assertEquals(scheme.code, "bad_input");
});

Deno.test("declare names the URL and the host", async () => {
  await using ws = await makeWorkspace();
  const access = await webfetchTool.declare(
    { url: "https://docs.example.com:8443/a?b=1", format: "markdown" },
    ws.ctx,
  );
  assertEquals(access.key, "webfetch");
  assertEquals(access.patterns, ["https://docs.example.com:8443/a?b=1"]);
  assertEquals(access.hosts, ["docs.example.com:8443"]);
  // "Always" approves the origin: the URL itself would read a `*` in it as a wildcard.
  assertEquals(access.always, ["https://docs.example.com:8443/*"]);
});

Deno.test({
  name: "without network permission the error is not_capable, not a crash",
  permissions: { read: true, write: true, net: false },
  async fn() {
    await using ws = await fetchingWorkspace();
    const error = await ws.fail(webfetchTool, { url: "http://127.0.0.1:45678/x", format: "text" });
    assertEquals(error.code, "not_capable");
  },
});

Deno.test("a page in the charset its server names reads right", async () => {
  await using ws = await fetchingWorkspace();
  await withServer(async (base) => {
    const result = await ws.run(webfetchTool, { url: `${base}/latin1`, format: "text" });
    assertEquals(result.output, "café");
  });
});

Deno.test("tables become pipe tables; relative links and images resolve against the page", async () => {
  const html =
    `<p><a href="../api/x.html">x</a> <a href="#part">part</a> <img src="a.png" alt="A"></p>
<table><thead><tr><th>name</th><th>type</th></tr></thead>
<tbody><tr><td><code>url</code></td><td>string | URL</td></tr><tr><td>ms</td><td>a<br>b</td></tr></tbody></table>`;
  assertEquals(
    await htmlToMarkdown(html, "https://docs.example/guide/intro.html"),
    [
      "[x](https://docs.example/api/x.html) [part](#part) ![A](https://docs.example/guide/a.png)",
      "",
      "| name | type |",
      "| --- | --- |",
      "| `url` | string \\| URL |",
      "| ms | a b |",
    ].join("\n"),
  );
});

Deno.test("a name that resolves to a local address is put to the gate marked local, and connected to as resolved", async () => {
  await using ws = await fetchingWorkspace();
  // rebind.test exists in no DNS: reaching the server proves the connection went to the address judged.
  ws.ctx.resolveHost = (name) => Promise.resolve(name === "rebind.test" ? ["127.0.0.1"] : []);
  await withServer(async (base) => {
    const url = `http://rebind.test:${new URL(base).port}/page`;
    const refused = await ws.fail(webfetchTool, { url, format: "text" });
    assertEquals(refused.code, "denied", "without a gate, a local address is not fetched");
    assertStringIncludes(refused.message, "rebind.test resolves to 127.0.0.1, a loopback address");
    assertStringIncludes(
      refused.hint ?? "",
      `webfetch(http://rebind.test:${new URL(base).port}/*)`,
    );
    const asked: Access[] = [];
    ws.ctx.authorize = (access) => {
      asked.push(access);
      return Promise.resolve();
    };
    const page = await ws.run(webfetchTool, { url, format: "text" });
    assertStringIncludes(page.output, "Install");
    assertEquals(asked.map((access) => access.local), [
      "rebind.test resolves to 127.0.0.1, a loopback address",
    ]);
  });
});

Deno.test("a public name is not asked about again; a literal local address is marked at declare", async () => {
  await using ws = await makeWorkspace();
  const declared = await webfetchTool.declare(
    { url: "http://169.254.169.254/x", format: "text" },
    ws.ctx,
  );
  assertStringIncludes(declared.local ?? "", "169.254.169.254 is a link-local address");
  const named = await webfetchTool.declare(
    { url: "http://localhost:8080/", format: "text" },
    ws.ctx,
  );
  assertEquals(named.local, "localhost is a loopback name");
  assertEquals(
    (await webfetchTool.declare({ url: "https://docs.example.com/", format: "text" }, ws.ctx))
      .local,
    undefined,
  );
  const asked: Access[] = [];
  ws.ctx.authorize = (access) => {
    asked.push(access);
    return Promise.resolve();
  };
  ws.ctx.resolveHost = () => Promise.resolve(["93.184.216.34"]);
  ws.ctx.fetch = () =>
    Promise.resolve(new Response("public", { headers: { "content-type": "text/plain" } }));
  const page = await ws.run(webfetchTool, { url: "https://docs.example.com/", format: "text" });
  assertEquals(page.output, "public");
  assertEquals(asked, []);
});
