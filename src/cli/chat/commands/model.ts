/**
 * /model and /agent: show what the next prompt runs with, list the choices
 * (models from the endpoint's `/models` when it serves one), and switch. A
 * switch takes effect from the next prompt; the conversation goes on.
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import type { EngineSpec } from "../../../engine/types.ts";
import { loadAgents } from "../../../definitions/agents/load.ts";
import type { AgentDefinition } from "../../../definitions/agents/types.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import type { SessionControls } from "./controls.ts";
import { endpointHeaders } from "../../../provider/auth_headers.ts";
import { didYouMean } from "../../../config/errors.ts";

type Command = SlashCommand<SessionControls>;

/**
 * The model ids the endpoint lists at `GET {baseURL}/models`, or why there
 * are none (it does not serve the list, or could not be reached).
 */
export async function listModels(
  provider: EngineSpec["provider"],
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 10_000,
): Promise<{ ok: true; models: string[] } | { ok: false; why: string }> {
  const url = `${provider.baseURL.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetchImpl(url, {
      headers: endpointHeaders(provider),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return {
        ok: false,
        why: `the endpoint does not list its models (${url}: ${response.status})`,
      };
    }
    const body = await response.json() as { data?: { id?: unknown }[] };
    const models = (body.data ?? []).flatMap((entry) =>
      typeof entry?.id === "string" ? [entry.id] : []
    );
    if (!models.length) return { ok: false, why: `the endpoint lists no models (${url})` };
    return { ok: true, models: models.sort() };
  } catch (error) {
    return {
      ok: false,
      why: `the model list could not be read (${url}: ${(error as Error).message})`,
    };
  }
}

/** Listed names that look like `wanted`: the closest by spelling, and those holding it. */
export function closeModelNames(wanted: string, models: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  const holding = models.filter((model) => model.toLowerCase().includes(lower));
  const spelled = didYouMean(wanted, models);
  return [...new Set([...(spelled ? [spelled] : []), ...holding])].slice(0, 5);
}

export function modelCommand(fetchImpl: typeof fetch = fetch): Command {
  // What the endpoint listed when /model last asked it in this chat.
  let listedModels: string[] | undefined;
  return {
    name: "model",
    description: "show or switch the model (lists the endpoint's models)",
    argumentHint: "[name]",
    async run(args, controls) {
      const current = controls.spec().model;
      if (args) {
        if (args === current) return controls.print(neutraliseControls(`Already on ${current}.`));
        if (listedModels && !listedModels.includes(args)) {
          const close = closeModelNames(args, listedModels);
          return controls.print(neutraliseControls(
            `No model "${args}" at this endpoint: it is not in the list /model showed.` +
              (close.length ? ` Did you mean ${close.join(", ")}?` : " See /model.") +
              " Still on " + current + ".",
          ));
        }
        await controls.reopen({ model: args });
        return controls.print(neutraliseControls(`Model: ${args} from the next prompt.`));
      }
      const listed = await listModels(controls.spec().provider, fetchImpl);
      listedModels = listed.ok ? listed.models : undefined;
      const lines = [`Model: ${current}`];
      if (listed.ok) {
        lines.push(
          "Available:",
          ...listed.models.map((model) => `  ${model === current ? "●" : " "} ${model}`),
          "Switch with /model <name>.",
        );
      } else {
        lines.push(`No list: ${listed.why}. Switch with /model <name> all the same.`);
      }
      controls.print(neutraliseControls(lines.join("\n")));
    },
  };
}

/**
 * The session's agents: the list `prepare()` resolved, or (a spec made
 * without it) loaded as it would have loaded them.
 */
export function sessionAgents(spec: EngineSpec): AgentDefinition[] {
  return (spec.resolvedAgents ?? loadAgents({
    workspace: spec.workspace,
    configDir: spec.configDir,
    configAgents: spec.configAgents,
    untrustedProject: spec.projectTrusted === false,
  })).agents;
}

/** The agents a person may run (not subagents), as the session resolved them. */
function primaryAgents(spec: EngineSpec): AgentDefinition[] {
  return sessionAgents(spec).filter((agent) => agent.mode !== "subagent" && agent.name !== "tool");
}

export const agentCommand: Command = {
  name: "agent",
  description: "show or switch the agent (build, plan, your own)",
  argumentHint: "[name]",
  async run(args, controls) {
    const spec = controls.spec();
    const agents = primaryAgents(spec);
    if (!args) {
      const width = Math.max(...agents.map((agent) => agent.name.length));
      return controls.print(neutraliseControls(
        [
          `Agent: ${spec.agent}`,
          ...agents.map((agent) =>
            `  ${agent.name === spec.agent ? "●" : " "} ${
              agent.name.padEnd(width)
            }  ${agent.description}`
          ),
          "Switch with /agent <name>.",
        ].join("\n"),
      ));
    }
    if (!agents.some((agent) => agent.name === args)) {
      return controls.print(neutraliseControls(
        `No agent "${args}" to switch to. Agents: ${agents.map((agent) => agent.name).join(", ")}.`,
      ));
    }
    if (args === spec.agent) return controls.print(neutraliseControls(`Already ${args}.`));
    await controls.reopen({ agent: args });
    controls.print(neutraliseControls(`Agent: ${args} from the next prompt.`));
  },
};
