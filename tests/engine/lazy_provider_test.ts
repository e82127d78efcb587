/**
 * The model client (engine/handle.ts `lazyProvider`): for a run with a model it is
 * made as soon as the openai SDK is loaded, before the session asks for it;
 * `skiff tool` never loads the SDK; a client that cannot be made is reported
 * where it was before (`ready()`, the first request), never as an unhandled
 * rejection.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { lazyProvider, type ProviderModules } from "../../src/engine/handle.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import type { ChatProvider } from "../../src/provider/types.ts";

function specFor(agent: string, baseURL = "http://127.0.0.1:9/v1"): EngineSpec {
  return { agent, provider: { baseURL }, settings: {} } as unknown as EngineSpec;
}

/** Stand-in modules: counts loads and clients made; `fail` makes construction throw. */
function fakeModules(fail?: Error) {
  const counts = { loads: 0, made: 0 };
  const client: ChatProvider = {
    baseURL: "fake",
    stream: () => Promise.resolve({ text: "", toolCalls: [], finishReason: "stop", usage: {} }),
  } as unknown as ChatProvider;
  const load = () => {
    counts.loads++;
    return Promise.resolve([
      {
        createProvider: () => {
          counts.made++;
          if (fail) throw fail;
          return client;
        },
      },
      { priceFor: () => undefined },
      { RateLimiter: class {} },
      { withModelDialect: (provider: ChatProvider) => provider },
    ] as unknown as ProviderModules);
  };
  return { counts, load, client };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a run's model client is made once the SDK is loaded, before anyone asks, and once", async () => {
  const modules = fakeModules();
  const { provider, ready } = lazyProvider(specFor("build"), modules.load);
  await settle();
  assertEquals(modules.counts, { loads: 1, made: 1 });
  assert((await ready()) === modules.client);
  await provider.stream({ model: "m", messages: [], tools: [] }, {});
  assertEquals(modules.counts, { loads: 1, made: 1 });
});

Deno.test("skiff tool (agent tool) neither loads the SDK nor makes a client", async () => {
  const modules = fakeModules();
  lazyProvider(specFor("tool"), modules.load);
  await settle();
  assertEquals(modules.counts, { loads: 0, made: 0 });
});

Deno.test("a client that cannot be made is reported by ready() and the first request", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    unhandled.push(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    const failure = new RangeError("baseURL must be an http(s) URL");
    const modules = fakeModules(failure);
    const { provider, ready } = lazyProvider(specFor("build"), modules.load);
    await settle();
    await assertRejects(() => ready(), RangeError, "baseURL must be");
    await assertRejects(
      () => provider.stream({ model: "m", messages: [], tools: [] }, {}),
      RangeError,
      "baseURL must be",
    );
    await settle();
    assertEquals(unhandled, []);
    assertEquals(modules.counts.made, 1);
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
});
