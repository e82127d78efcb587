/**
 * Starts the session's MCP servers. Their entries may name environment
 * variables (`${TOKEN}`); the engine sees only a snapshot the terminal side
 * took of exactly those names plus the child allowlist, never the whole
 * environment. A stdio server with `"sandbox": true` is started through the
 * same OS sandbox as bash, with the network as its entry says.
 */
import { McpManager, type McpManagerOptions } from "../mcp/manager.ts";
import type { SandboxLauncherFor } from "../mcp/connection.ts";
import { type AvailableSandboxes, chooseLauncher, probeSandboxesFor } from "../sandbox/choose.ts";
import { mcpSources, type McpSpec, sessionMcpServers } from "../mcp/sources.ts";
import { landlockProbeCacheOf } from "./launcher.ts";
import type { Tool } from "../tools/tool.ts";
import { VERSION } from "../version.ts";
import type { SessionSandbox } from "./types.ts";

/** The parts of a session's spec its MCP servers start from. */
export type McpStartSpec = McpSpec & { dataDir: string; sandbox: SessionSandbox };

export interface StartedMcp {
  tools: Tool[];
  warnings: string[];
  manager: McpManager;
  close(): Promise<void>;
}

/** The manager's view of where servers come from (src/trust/mcp_trust.ts). */
export function mcpManagerSources(spec: McpSpec): McpManagerOptions {
  const { configServers, ...rest } = mcpSources(spec);
  return { ...rest, servers: configServers };
}

/**
 * The OS sandbox for a server that asks for it: the session's mode (a
 * `full-access` session still sandboxes such a server, as `workspace-write`),
 * its folders and environment names, and the server's own network setting.
 */
export function mcpSandboxLauncher(
  spec: McpStartSpec,
  /** Only the backends `sandbox.backend` can use: no Landlock probe where bubblewrap works. */
  probe: () => Promise<AvailableSandboxes> = () =>
    probeSandboxesFor(spec.sandbox.backend ?? "auto", landlockProbeCacheOf(spec)),
): SandboxLauncherFor {
  let available: Promise<AvailableSandboxes> | undefined;
  return async ({ network }) => {
    available ??= probe();
    const choice = chooseLauncher(
      {
        mode: spec.sandbox.mode === "full-access" ? "workspace-write" : spec.sandbox.mode,
        workspace: spec.workspace,
        addDirs: spec.sandbox.addDirs,
        network,
        envNames: spec.sandbox.env,
      },
      Deno.build.os,
      await available,
      (name) => spec.mcp.env[name],
      // A forced backend (`--sandbox-backend`, `sandbox.backend`) holds for servers too.
      spec.sandbox.backend ?? "auto",
    );
    return choice.kind === "launcher" ? choice.launcher : choice.message;
  };
}

export async function startMcp(spec: McpStartSpec): Promise<StartedMcp> {
  const manager = new McpManager({
    ...mcpManagerSources(spec),
    resolved: sessionMcpServers(spec),
    sandboxLauncher: mcpSandboxLauncher(spec),
    dataDir: spec.dataDir,
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
