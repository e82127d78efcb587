/**
 * `skiff mcp list`: start each configured MCP server (config `mcp` and
 * `.mcp.json`), show its status and tools, then stop them.
 */
import { prepare } from "../../host/setup.ts";
import { mcpManagerSources, mcpSandboxLauncher } from "../../engine/mcp_start.ts";
import { describeMcpState, McpManager } from "../../mcp/manager.ts";
import { approvalPrompter } from "../approvals.ts";
import { VERSION } from "../../version.ts";
import { ExitCode } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";
import { printErrorLine, printLine } from "../../ui/safe_print.ts";
import { refuseInsideSkiff } from "./mcp_nested.ts";

export async function listMcp(options: { dir?: string; allow?: string[] }): Promise<number> {
  try {
    refuseInsideSkiff("mcp list");
    // Same trust rules as a session: a project's own servers start only on the user's word.
    const { spec } = await prepare(options, false, approvalPrompter(true));
    const manager = new McpManager({
      ...mcpManagerSources(spec),
      sandboxLauncher: mcpSandboxLauncher(spec),
      dataDir: spec.dataDir,
      clientInfo: { name: "skiff", version: VERSION },
    });
    try {
      const { warnings } = await manager.start();
      for (const warning of [...spec.warnings, ...warnings]) printErrorLine(`warning: ${warning}`);
      const statuses = manager.status();
      if (statuses.length === 0) {
        printLine(
          'No MCP servers configured. Add one under "mcp" in skiff.json, or in .mcp.json (see docs/mcp.md).',
        );
        return ExitCode.ok;
      }
      for (const status of statuses) {
        // Names, descriptions and a failed server's stderr come from the servers and config files.
        printLine(
          `${status.name} (${status.transport}, ${status.source}): ${describeMcpState(status)}`,
        );
        for (const tool of status.tools) {
          printLine(`  ${tool.name}  ${tool.description.split("\n")[0].slice(0, 100)}`);
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
