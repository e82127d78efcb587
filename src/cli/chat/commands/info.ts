/**
 * /usage, /permissions and /mcp: what this session has spent, the rules its
 * tool calls are judged by and where each came from, and its MCP servers.
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import { openStore } from "../../../store/store.ts";
import { ruleLayers } from "../../../engine/permission_gate.ts";
import { pickAgent } from "../../../engine/session_parts.ts";
import { loadAgents } from "../../../definitions/agents/load.ts";
import { describeRule, flattenLayer, type PermissionConfig } from "../../../permission/rules.ts";
import { describeMcpState } from "../../../mcp/manager.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import { describeCost, describeTokens } from "../../sessions/usage.ts";
import type { SessionControls } from "./controls.ts";

type Command = SlashCommand<SessionControls>;

export const usageSlashCommand: Command = {
  name: "usage",
  description: "tokens and cost so far in this session",
  run(_args, controls) {
    const sessionId = controls.sessionId();
    if (!sessionId) return controls.print("Nothing spent yet: no prompt has run in this chat.");
    const store = openStore(controls.spec().dataDir);
    try {
      // The per-request rows `skiff sessions show` reads.
      const own = store.usage.ownTotals(sessionId);
      const all = store.usage.sessionTotals(sessionId);
      const lines = [
        `Session ${sessionId}: ${own.requests} request${own.requests === 1 ? "" : "s"}`,
        `  tokens: ${describeTokens(own)}`,
        `  cost:   ${describeCost(own)}`,
      ];
      if (all.requests > own.requests) {
        lines.push(`  with subagents: ${describeTokens(all)}; cost ${describeCost(all)}`);
      }
      if (all.unpriced_requests) {
        lines.push(
          "  (+? or ?: a model with no known price; set models.<name>.cost in the config)",
        );
      }
      controls.print(neutraliseControls(lines.join("\n")));
    } finally {
      store.close();
    }
  },
};

export const permissionsCommand: Command = {
  name: "permissions",
  description: "the permission rules in effect and where each came from",
  run(_args, controls) {
    const spec = controls.spec();
    const agents = spec.resolvedAgents ?? loadAgents({
      workspace: spec.workspace,
      configDir: spec.configDir,
      configAgents: spec.configAgents,
      untrustedProject: spec.projectTrusted === false,
    });
    const agent = pickAgent(agents.agents, spec.agent, 0);
    // The very table the session's gate is built from (src/engine/permission_gate.ts).
    const layers = ruleLayers(spec, agent.permission as PermissionConfig | undefined);
    const fileOf = (name: string) =>
      spec.permissionLayers.find((layer) => layer.source === name)?.path;
    const lines = [
      `Rules, lowest precedence first (a later layer wins among allow and ask; a deny anywhere wins):`,
    ];
    for (const layer of layers) {
      const rules = flattenLayer(layer);
      if (!rules.length) continue;
      const where = layer.name === "agent"
        ? `agent ${agent.name}`
        : fileOf(layer.name) ?? (layer.name === "flags" ? "command line" : layer.name);
      lines.push(`${layer.name} (${where}):`, ...rules.map((rule) => `  ${describeRule(rule)}`));
    }
    if (spec.projectTrusted === false) {
      lines.push("This project is not trusted: its own allow rules are left out.");
    }
    lines.push(`Sandbox: ${spec.sandbox.mode}. "Always" answers given in this chat add to these.`);
    controls.print(neutraliseControls(lines.join("\n")));
  },
};

export const mcpCommand: Command = {
  name: "mcp",
  description: "this session's MCP servers and their state",
  async run(_args, controls) {
    if (!controls.spec().mcp.enabled) return controls.print("MCP is off for this session.");
    const engine = await controls.engine();
    const statuses = engine.mcpStatus ? await engine.mcpStatus() : [];
    if (!statuses.length) {
      return controls.print(
        'No MCP servers configured. Add one under "mcp" in skiff.json, or in .mcp.json (see docs/mcp.md).',
      );
    }
    const lines = statuses.flatMap((status) => [
      `${status.name} (${status.transport}, ${status.source}): ${describeMcpState(status)}`,
      ...status.tools.map((tool) => `  ${tool.name}`),
    ]);
    controls.print(neutraliseControls(lines.join("\n")));
  },
};
