/**
 * Servers set up in a way no retry changes, end to end through `skiff run
 * --json`: each is asked once, and the message names the fix. And Azure
 * OpenAI's classic endpoint, which takes the key in an `api-key` header and
 * the API version in the query.
 *
 * - LM Studio answers any path it does not serve with 200 and an error body,
 *   `{"error":"Unexpected endpoint or method. (POST /chat/completions)"}`
 *   (https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/618): a base
 *   URL without /v1.
 * - llama.cpp's llama-server started without --jinja refuses a request with
 *   tools: 500 `{"error":{"code":500,"message":"tools param requires --jinja
 *   flag","type":"server_error"}}` (its server's `oaicompat` request parsing;
 *   quoted in https://github.com/defilantech/LLMKube/issues/126).
 * - Azure OpenAI (https://learn.microsoft.com/azure/ai-services/openai/reference):
 *   `POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`
 *   with `api-key: <key>`; a request without it is refused with 401.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import * as path from "node:path";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";

/** A header value that is a credential too: like the key, it is stored nowhere. */
const GATEWAY_TOKEN = "gw-secret-4242";

interface Seen {
  url: string;
  headers: Record<string, string>;
}

/** A server answering every request with `answer`; what it was sent is kept. */
function serve(answer: (request: Request) => Response) {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    seen.push({ url: request.url, headers: Object.fromEntries(request.headers) });
    await request.body?.cancel();
    return answer(request);
  });
  const port = (server.addr as Deno.NetAddr).port;
  return { origin: `http://127.0.0.1:${port}`, seen, close: () => server.shutdown() };
}

async function run(baseURL: string, config: Record<string, unknown> = {}, key = "sk-local") {
  const sandbox = await makeSandbox({
    OPENAI_BASE_URL: baseURL,
    OPENAI_API_KEY: key,
    SKIFF_MODEL: "m",
  });
  try {
    await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify(config));
    const result = await runSkiff(["run", "--json", "hi"], sandbox);
    return { ...result, sandbox };
  } finally {
    await sandbox.cleanup();
  }
}

function failureText(stdout: string): string {
  const events = parseJsonLines(stdout);
  return JSON.stringify(
    events.filter((event) => event.type === "error" || event.type === "session.completed"),
  );
}

Deno.test("LM Studio without /v1: asked once, and the message says to add /v1", async () => {
  const server = serve((request) =>
    Response.json({
      error: `Unexpected endpoint or method. (POST ${new URL(request.url).pathname})`,
    })
  );
  try {
    const result = await run(server.origin);
    assertEquals(result.code, 4, result.stderr);
    assertEquals(server.seen.length, 1, "not retried as a network failure");
    const text = failureText(result.stdout);
    assert(text.includes("add /v1 to it") && text.includes(`${server.origin}/v1`), text);
    assert(!text.includes("attempts"), text);
  } finally {
    await server.close();
  }
});

Deno.test("llama.cpp without --jinja: asked once, and the message says to start it with --jinja", async () => {
  const server = serve(() =>
    Response.json({
      error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" },
    }, { status: 500 })
  );
  try {
    const result = await run(`${server.origin}/v1`);
    assertEquals(result.code, 4, result.stderr);
    assertEquals(server.seen.length, 1, "a setup error is not retried");
    const text = failureText(result.stdout);
    assert(text.includes("Start llama-server with --jinja"), text);
    assert(text.includes("tools param requires --jinja flag"), text);
  } finally {
    await server.close();
  }
});

Deno.test("Azure OpenAI: the key goes as api-key (never as Bearer), with api-version and extra headers", async () => {
  const key = "azure-secret-0123456789";
  const server = serve((request) => {
    const url = new URL(request.url);
    if (request.headers.get("api-key") !== key) {
      return Response.json({
        error: { code: "401", message: "Access denied due to invalid subscription key." },
      }, { status: 401 });
    }
    if (url.searchParams.get("api-version") !== "2024-10-21") {
      return Response.json({ error: { code: "404", message: "Resource not found" } }, {
        status: 404,
      });
    }
    const chunk = (delta: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    return new Response(
      chunk({ content: "hello from azure" }, null) + chunk({}, "stop") + "data: [DONE]\n\n",
      {
        headers: { "content-type": "text/event-stream" },
      },
    );
  });
  const sandbox = await makeSandbox({
    OPENAI_BASE_URL: `${server.origin}/openai/deployments/gpt-4o`,
    OPENAI_API_KEY: key,
    SKIFF_MODEL: "gpt-4o",
  });
  try {
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({
        provider: {
          auth: "api-key",
          apiVersion: "2024-10-21",
          headers: { "x-ms-client-request-id": "skiff-test", "x-gateway-token": GATEWAY_TOKEN },
        },
      }),
    );
    const result = await runSkiff(["run", "--json", "hi"], sandbox);
    assertEquals(result.code, 0, result.stderr + result.stdout);
    assertEquals(server.seen.length, 1);
    const [{ url, headers }] = server.seen;
    assertEquals(new URL(url).pathname, "/openai/deployments/gpt-4o/chat/completions");
    assertEquals(headers["api-key"], key);
    assertEquals(headers.authorization, undefined, "no bearer token beside the api-key");
    assertEquals(headers["x-ms-client-request-id"], "skiff-test");
    assertEquals(headers["x-gateway-token"], GATEWAY_TOKEN);
    assert(result.stdout.includes("hello from azure"));
    // The key and the headers are in no event and nowhere in the data folder (the session store).
    for (const secret of [key, GATEWAY_TOKEN]) {
      assert(!result.stdout.includes(secret) && !result.stderr.includes(secret));
    }
    const files = await filesUnder(sandbox.dataDir);
    assert(files.length > 0, "the run wrote its session");
    for (const file of files) {
      const bytes = await Deno.readFile(file);
      const text = new TextDecoder().decode(bytes);
      assert(!text.includes(key) && !text.includes(GATEWAY_TOKEN), `a secret is in ${file}`);
    }
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
});

/** Every file under `dir`, at any depth. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory) found.push(...await filesUnder(full));
    else if (entry.isFile) found.push(full);
  }
  return found;
}
