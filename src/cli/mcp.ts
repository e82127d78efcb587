/**
 * `skiff mcp list`: start each configured MCP server (config `mcp` and
 * `.mcp.json`), show its status and tools, then stop them.
 */
import { resolveWorkspace } from "../app/setup.ts";
import { loadConfig } from "../config/load.ts";
import { describeMcpState, McpManager } from "../mcp/manager.ts";
import type { McpServerInput } from "../mcp/config.ts";
import { VERSION } from "../version.ts";
import { ExitCode } from "./exit_codes.ts";
import { reportFatal } from "./main.ts";

export async function listMcp(options: { dir?: string }): Promise<number> {
  try {
    const workspace = resolveWorkspace(options.dir);
    const { config } = await loadConfig({ workspace, flags: {} });
    const manager = new McpManager({
      workspace,
      servers: (config.mcp ?? {}) as Record<string, McpServerInput>,
      clientInfo: { name: "skiff", version: VERSION },
    });
    try {
      const { warnings } = await manager.start();
      for (const warning of warnings) console.error(`warning: ${warning}`);
      const statuses = manager.status();
      if (statuses.length === 0) {
        console.log(
          'No MCP servers configured. Add one under "mcp" in skiff.json, or in .mcp.json (see docs/mcp.md).',
        );
        return ExitCode.ok;
      }
      for (const status of statuses) {
        console.log(
          `${status.name} (${status.transport}, ${status.source}): ${describeMcpState(status)}`,
        );
        for (const tool of status.tools) {
          console.log(`  ${tool.name}  ${tool.description.split("\n")[0].slice(0, 100)}`);
        }
      }
      return statuses.some((status) => status.state === "failed") ? ExitCode.failed : ExitCode.ok;
    } finally {
      await manager.close();
    }
  } catch (error) {
    return reportFatal(error);
  }
}
