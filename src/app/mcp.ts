/**
 * Starts the session's MCP servers. Their entries may name environment
 * variables (`${TOKEN}`); the engine sees only a snapshot the terminal side
 * took of exactly those names plus the child allowlist, never the whole
 * environment.
 */
import { McpManager } from "../mcp/manager.ts";
import { mcpServerInputs } from "./mcp_trust.ts";
import type { Tool } from "../tools/tool.ts";
import { VERSION } from "../version.ts";
import type { EngineSpec } from "./engine_types.ts";

export interface StartedMcp {
  tools: Tool[];
  warnings: string[];
  manager: McpManager;
  close(): Promise<void>;
}

export async function startMcp(spec: EngineSpec): Promise<StartedMcp> {
  const manager = new McpManager({
    workspace: spec.workspace,
    servers: mcpServerInputs(spec),
    env: (name) => spec.mcp.env[name],
    clientInfo: { name: "skiff", version: VERSION },
  });
  const { warnings } = await manager.start();
  return {
    tools: manager.tools() as Tool[],
    warnings,
    manager,
    close: () => manager.close(),
  };
}
