/**
 * `skiff agents list`: every agent skiff can run, where it came from, and
 * whether it is a primary agent (`--agent`) or a subagent (the task tool).
 */
import { loadAgentsAsync } from "../definitions/agents/load.ts";
import type { ConfigAgent } from "../definitions/agents/types.ts";
import { resolveWorkspace } from "../host/setup.ts";
import { loadConfig } from "../config/load.ts";
import { ExitCode } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";
import { printErrorLine, printLine } from "../ui/safe_print.ts";

export async function listAgents(options: { dir?: string }): Promise<number> {
  try {
    const workspace = resolveWorkspace(options.dir);
    const { config, configDir } = await loadConfig({ workspace, flags: {} });
    const { agents, warnings } = await loadAgentsAsync({
      workspace,
      configDir,
      configAgents: config.agent as Record<string, ConfigAgent> | undefined,
    });
    for (const warning of warnings) printErrorLine(`warning: ${warning}`);
    const width = Math.max(...agents.map((agent) => agent.name.length));
    for (const agent of agents) {
      const source = agent.source === "builtin" || agent.source === "config"
        ? agent.source
        : agent.source.replace(workspace + "/", "");
      // Names and descriptions come from agent files, a project's among them.
      printLine(
        `${agent.name.padEnd(width)}  ${agent.mode.padEnd(8)}  ${agent.description}  [${source}]`,
      );
    }
    return ExitCode.ok;
  } catch (error) {
    return reportFatal(error);
  }
}
