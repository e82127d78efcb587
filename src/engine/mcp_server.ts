/**
 * skiff's tools as an MCP server: `tools/list` offers the tools a session
 * built from the registry would have (the built-in ones and, unless memory is
 * off, the harness memory tools), and `tools/call` runs one through the
 * engine's `runTool` — the path `skiff tool` takes — so the policy table, the
 * sandbox, the file ledger and undo apply as in a run. Nobody can be asked
 * from here: an `ask` is a deny whose hint names the `--allow` that works.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { builtinTools, type ToolSchemaEntry, toolSchemas } from "../tools/registry.ts";
import { createHarnessTools } from "../tools/session/mod.ts";
import type { MemoryTable } from "../store/memory.ts";
import type { Tool } from "../tools/tool.ts";
import type { EngineHandle } from "./handle.ts";
import { VERSION } from "../version.ts";
import { mcpToolHints } from "./mcp_tool_annotations.ts";

/** The tools offered: whatever `builtinTools()` holds, then the memory tools. */
export function servedTools(memory: boolean): ToolSchemaEntry[] {
  const tools: Tool[] = [...builtinTools()];
  if (memory) {
    // Built only for their names and schemas: the engine runs the real ones.
    const unused = new Proxy({}, {
      get() {
        throw new Error("the listing's memory tools are never run");
      },
    }) as MemoryTable;
    tools.push(...createHarnessTools(unused, "/", "listing"));
  }
  return toolSchemas(tools);
}

/**
 * An MCP server answering from `engine` once it is up with its session open:
 * the handshake and `tools/list` need no engine, so a client that waits only
 * briefly for its servers (Codex) gets them while the engine is starting.
 */
export function createSkiffMcpServer(
  engine: Promise<EngineHandle>,
  tools: ToolSchemaEntry[],
): Server {
  const server = new Server(
    { name: "skiff", version: VERSION },
    { capabilities: { tools: {} }, instructions: "skiff's file, search, shell and memory tools." },
  );
  // Whoever started the engine reports a failed start; a call then answers with its error.
  engine.catch(() => {});
  const offered = new Set(tools.map((tool) => tool.name));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      ...mcpToolHints(tool.name),
      description: tool.description,
      inputSchema: { type: "object" as const, ...tool.parameters },
    })),
  }));
  // Calls run as they come, as the loop runs a turn's calls together; the
  // ledger and undo record each as it ends. A client's `notifications/cancelled`
  // (or the connection closing) aborts the handler's signal: that call alone stops.
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request: CallToolRequest, extra: { signal: AbortSignal }) => {
      const { name, arguments: input } = request.params;
      if (!offered.has(name)) {
        return {
          content: [{ type: "text" as const, text: `No tool named "${name}". Call tools/list.` }],
          isError: true,
        };
      }
      const ready = await engine;
      const cancelId = crypto.randomUUID();
      const cancel = () => ready.cancelTool?.(cancelId);
      extra.signal.addEventListener("abort", cancel, { once: true });
      try {
        const result = await ready.runTool(name, input ?? {}, { cancelId });
        if (result.ok) {
          return { content: [{ type: "text" as const, text: result.output }] };
        }
        const error = result.error;
        const text = [
          error ? `${error.code}: ${error.message}` : "the call failed",
          error?.hint ? `Hint: ${error.hint}` : "",
          result.output,
        ].filter(Boolean).join("\n");
        return { content: [{ type: "text" as const, text }], isError: true };
      } finally {
        extra.signal.removeEventListener("abort", cancel);
      }
    },
  );
  return server;
}
