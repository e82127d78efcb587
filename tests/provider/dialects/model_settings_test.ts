/**
 * Which `provider.models` entry a model gets, for every setting kept there
 * (its wire protocol, its dialect settings): the entry under its own id,
 * else the longest `*` pattern that matches it.
 */
import { assertEquals } from "../../support/assert.ts";
import { modelEntry } from "../../../src/provider/dialects/model_settings.ts";
import { modelDialect } from "../../../src/provider/dialects/model_dialect.ts";

Deno.test("model settings: the id itself wins, then the longest matching pattern", () => {
  const entries = {
    "*": "any",
    "gpt-5*": "family",
    "gpt-5-codex*": "codex",
    "gpt-5-codex-mini": "exact",
    "org/*:free": "free",
  };
  assertEquals(modelEntry("gpt-5-codex-mini", entries), "exact");
  assertEquals(modelEntry("gpt-5-codex-max", entries), "codex");
  assertEquals(modelEntry("gpt-5.1", entries), "family");
  assertEquals(modelEntry("llama3", entries), "any");
  assertEquals(modelEntry("org/qwen3:free", entries), "free");
  // Every other character means itself: "." is no wildcard.
  assertEquals(modelEntry("gpt-5", { "gpt.5": "dot" }), undefined);
  // No entry comes from Object.prototype.
  assertEquals(modelEntry("constructor", {}), undefined);
  assertEquals(modelEntry("anything", undefined), undefined);
});

Deno.test("model settings: a model's dialect follows the same entry as its wire", () => {
  const models = {
    "qwen*": { textToolCalls: "hermes" as const },
    "qwen2.5-coder*": { textToolCalls: "off" as const },
  };
  assertEquals(
    modelDialect("qwen2.5-coder-7b", "http://127.0.0.1:1/v1", models).textToolCalls,
    "off",
  );
  assertEquals(modelDialect("qwen3-8b", "http://127.0.0.1:1/v1", models).textToolCalls, "hermes");
});
