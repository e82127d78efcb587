/**
 * The key goes as the endpoint wants it: a bearer token, or Azure OpenAI's
 * `api-key` (by default on Azure's hosts), never both; the user's headers win.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { endpointHeaders } from "../../src/provider/auth_headers.ts";

Deno.test("a bearer token by default, api-key on Azure hosts or when asked, and none without a key", () => {
  assertEquals(endpointHeaders({ baseURL: "http://127.0.0.1:8080/v1", apiKey: "k" }), {
    authorization: "Bearer k",
  });
  assertEquals(
    endpointHeaders({ baseURL: "https://res.openai.azure.com/openai/deployments/d", apiKey: "k" }),
    { "api-key": "k" },
  );
  assertEquals(
    endpointHeaders({ baseURL: "https://gateway.example/v1", apiKey: "k", auth: "api-key" }),
    { "api-key": "k" },
  );
  assertEquals(endpointHeaders({ baseURL: "http://127.0.0.1:8080/v1" }), {});
});

Deno.test("the user's headers are added, and their api-key replaces the bearer token", () => {
  assertEquals(
    endpointHeaders({ baseURL: "https://gw.example/v1", apiKey: "k", headers: { "X-Trace": "1" } }),
    { authorization: "Bearer k", "x-trace": "1" },
  );
  assertEquals(
    endpointHeaders({
      baseURL: "https://gw.example/v1",
      apiKey: "k",
      headers: { "Api-Key": "other" },
    }),
    { "api-key": "other" },
  );
});
