/**
 * An agent's `model:` at the one configured endpoint: opencode's
 * `provider/model` ids are mapped to the endpoint or refused with a warning,
 * never sent verbatim to an endpoint that is not a router; and the top-level
 * agent's model is chosen below `--model`.
 */
import assert from "node:assert/strict";
import {
  agentModelAt,
  primaryModel,
  settleAgentModels,
} from "../../../src/definitions/agents/models.ts";
import type { AgentDefinition } from "../../../src/definitions/agents/types.ts";

const at = (baseURL: string, model = "session-model", knownModels: string[] = []) => ({
  baseURL,
  model,
  knownModels,
});

Deno.test("a provider prefix naming the endpoint is taken off; a bare id goes as written", () => {
  const file = "/p/.opencode/agent/review.md";
  assert.deepEqual(
    agentModelAt("anthropic/claude-opus-4-8", at("https://api.anthropic.com/v1"), file),
    { model: "claude-opus-4-8" },
  );
  assert.deepEqual(agentModelAt("openai/gpt-4.1", at("https://api.openai.com/v1"), file), {
    model: "gpt-4.1",
  });
  assert.deepEqual(
    agentModelAt(
      "google/gemini-2.5-pro",
      at("https://generativelanguage.googleapis.com/v1beta/openai"),
      file,
    ),
    { model: "gemini-2.5-pro" },
  );
  assert.deepEqual(agentModelAt("gpt-4.1", at("https://api.anthropic.com/v1"), file), {
    model: "gpt-4.1",
  });
});

Deno.test("OpenRouter, a configured id and a session model with the same prefix keep the id as written", () => {
  const file = "a.md";
  assert.deepEqual(
    agentModelAt("anthropic/claude-opus-4-8", at("https://openrouter.ai/api/v1"), file),
    { model: "anthropic/claude-opus-4-8" },
  );
  assert.deepEqual(
    agentModelAt(
      "anthropic/claude-opus-4-8",
      at("http://gateway.internal:4000", "x", ["anthropic/claude-opus-4-8"]),
      file,
    ),
    { model: "anthropic/claude-opus-4-8" },
  );
  assert.deepEqual(
    agentModelAt(
      "anthropic/claude-opus-4-8",
      at("http://localhost:4000", "anthropic/claude-sonnet-4-5"),
      file,
    ),
    { model: "anthropic/claude-opus-4-8" },
  );
});

Deno.test("a prefix that matches nothing: the session's model, with one warning naming file and model", () => {
  const file = "/p/.opencode/agent/review.md";
  const result = agentModelAt("anthropic/claude-opus-4-8", at("http://127.0.0.1:8080/v1"), file);
  assert.equal(result.model, undefined);
  assert.ok("warning" in result);
  assert.match(
    result.warning,
    /^\/p\/\.opencode\/agent\/review\.md: model "anthropic\/claude-opus-4-8"/,
  );
  assert.match(result.warning, /session's model \(session-model\)/);

  const agent = (name: string, model?: string): AgentDefinition => ({
    name,
    description: name,
    mode: "all",
    model,
    tools: {},
    permission: {},
    source: `/p/${name}.md`,
  });
  const settled = settleAgentModels(
    { agents: [agent("a", "anthropic/x"), agent("b", "openai/y"), agent("c")], warnings: [] },
    at("https://api.openai.com/v1"),
  );
  assert.deepEqual(settled.agents.map((one) => one.model), [undefined, "y", undefined]);
  assert.equal(settled.warnings.length, 1);
  assert.match(settled.warnings[0], /^\/p\/a\.md: model "anthropic\/x"/);
});

Deno.test("the top-level model: --model, then the agent's own, then the configured one", () => {
  const agents: AgentDefinition[] = [
    {
      name: "build",
      description: "",
      mode: "primary",
      model: "big",
      tools: {},
      permission: {},
      source: "config",
    },
    {
      name: "helper",
      description: "",
      mode: "subagent",
      model: "tiny",
      tools: {},
      permission: {},
      source: "x",
    },
  ];
  assert.deepEqual(primaryModel(agents, "build", "configured", "flag"), {
    model: "flag",
    from: "flag",
  });
  assert.deepEqual(primaryModel(agents, "build", "configured"), { model: "big", from: "agent" });
  assert.deepEqual(primaryModel(agents, "plan", "configured"), {
    model: "configured",
    from: "config",
  });
  assert.deepEqual(primaryModel(agents, "helper", "configured"), {
    model: "configured",
    from: "config",
  });
});
