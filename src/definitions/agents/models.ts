/**
 * What an agent's `model:` means at the one endpoint skiff talks to. opencode
 * writes models as `provider/model` (`anthropic/claude-…`); an endpoint that
 * is not a router answers such an id with "model not found", or worse, a
 * gateway maps it to something else. So a prefix that names the configured
 * endpoint is taken off, a router (OpenRouter, whose ids are `vendor/model`)
 * gets the id as written, and a prefix that matches nothing leaves the agent
 * on the session's model with one warning naming the file and the model.
 *
 * Also here: which model the top-level agent runs with. A `--model` flag is
 * the person's word for this run and wins; then the agent's own `model`; then
 * `SKIFF_MODEL` or the config's `provider.model`.
 */
import type { AgentDefinition, LoadedAgents } from "./types.ts";

/** The endpoint as configured: where requests go and the ids it is known to take. */
export interface ModelEndpoint {
  /** `provider.baseURL`. */
  baseURL: string;
  /** The session's model (`provider.model`, `SKIFF_MODEL` or `--model`). */
  model: string;
  /** Model ids the config names (`models`, `provider.models`): the endpoint takes these as written. */
  knownModels?: Iterable<string>;
}

/** Hosts whose model ids are `vendor/model`: the id goes as written. */
const ROUTER_HOSTS = ["openrouter.ai"];

/** Provider prefixes whose endpoint's host does not contain the prefix itself. */
const HOST_LABELS: Record<string, string[]> = {
  google: ["googleapis"],
  gemini: ["googleapis"],
  "google-vertex": ["googleapis"],
  xai: ["x"],
  "azure-openai": ["azure"],
  "together-ai": ["together"],
  togetherai: ["together"],
  "fireworks-ai": ["fireworks"],
};

/** The model sent for an agent's `model:`, or why the session's model is used instead. */
export type AgentModel = { model: string } | { model?: undefined; warning: string };

/**
 * What `written` (an agent's `model:`, from `source`) becomes at `endpoint`:
 * an id without a prefix as it is; `provider/model` as described above.
 */
export function agentModelAt(
  written: string,
  endpoint: ModelEndpoint,
  source: string,
): AgentModel {
  const slash = written.indexOf("/");
  if (slash <= 0) return { model: written };
  const prefix = written.slice(0, slash).toLowerCase();
  const bare = written.slice(slash + 1);
  const host = hostOf(endpoint.baseURL);
  if (ROUTER_HOSTS.some((router) => host === router || host.endsWith(`.${router}`))) {
    return { model: written };
  }
  const known = new Set(endpoint.knownModels ?? []);
  // The config names the id, or the session's own model has the same prefix: this endpoint takes prefixed ids.
  if (known.has(written) || endpoint.model.toLowerCase().startsWith(`${prefix}/`)) {
    return { model: written };
  }
  const labels = host.split(".");
  if ((HOST_LABELS[prefix] ?? [prefix]).some((label) => labels.includes(label))) {
    return { model: bare };
  }
  return {
    warning: `${source}: model "${written}" names the provider "${prefix}", which is not the ` +
      `configured endpoint (${endpoint.baseURL}); the agent uses the session's model ` +
      `(${endpoint.model || "none set"}). Write the model id the endpoint takes ` +
      `("${bare}" if it serves that model), or point provider.baseURL at ${prefix}`,
  };
}

/**
 * The agents with each `model:` settled for `endpoint` (`agentModelAt`): a
 * prefix naming the endpoint taken off, one that matches nothing dropped with
 * a warning.
 */
export function settleAgentModels(loaded: LoadedAgents, endpoint: ModelEndpoint): LoadedAgents {
  const warnings = [...loaded.warnings];
  const agents = loaded.agents.map((agent): AgentDefinition => {
    if (agent.model === undefined) return agent;
    const settled = agentModelAt(agent.model, endpoint, sourceName(agent));
    if (settled.model !== undefined) return { ...agent, model: settled.model };
    warnings.push(settled.warning);
    const { model: _dropped, ...rest } = agent;
    return rest;
  });
  return { agents, warnings };
}

/** What the top-level agent runs with, and where that came from (for messages). */
export interface PrimaryModelChoice {
  model: string;
  from: "flag" | "agent" | "config";
}

/**
 * The model of the top-level session: `--model` (`flagModel`), else the
 * named agent's own (already settled and trust-checked), else `configured`.
 */
export function primaryModel(
  agents: AgentDefinition[],
  agentName: string,
  configured: string,
  flagModel?: string,
): PrimaryModelChoice {
  if (flagModel) return { model: flagModel, from: "flag" };
  const agent = agents.find((candidate) => candidate.name === agentName);
  if (agent?.model && agent.mode !== "subagent") return { model: agent.model, from: "agent" };
  return { model: configured, from: "config" };
}

function sourceName(agent: AgentDefinition): string {
  return agent.source === "config" ? `config agent.${agent.name}` : agent.source;
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).hostname.toLowerCase();
  } catch {
    return "";
  }
}
