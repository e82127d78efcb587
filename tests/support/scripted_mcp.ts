/**
 * A small MCP server over stdio, written by a test: it offers the tools it is
 * given, answers each `tools/call` with "<server> ran <tool>", and appends
 * every call it receives to a log file, so a test sees which calls reached
 * the server and not skiff's own tool of a similar name. It can also write a
 * line to stderr and exit at once, as a server that fails to start.
 */
import * as path from "node:path";

export interface ScriptedTool {
  name: string;
  description?: string;
}

export interface ScriptedServer {
  /** The server's entry, as a config file's `mcp` key or `.mcp.json` names it. */
  entry: { command: string; args: string[] };
  /** The calls it received, in order. */
  calls(): Promise<{ tool: string; arguments: unknown }[]>;
}

const SERVER = `
const [label, logFile, toolsJson, failLine] = Deno.args;
if (failLine) {
  console.error(failLine);
  Deno.exit(1);
}
const tools = JSON.parse(toolsJson).map((tool) => ({
  name: tool.name,
  description: tool.description ?? "A scripted tool.",
  inputSchema: { type: "object", properties: {} },
}));
const encoder = new TextEncoder();
const send = (message) => Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\\n"));
let buffered = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffered += chunk;
  for (let newline; (newline = buffered.indexOf("\\n")) >= 0;) {
    const line = buffered.slice(0, newline).trim();
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    const request = JSON.parse(line);
    if (request.id === undefined) continue;
    let result = {};
    if (request.method === "initialize") {
      result = {
        protocolVersion: request.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: label, version: "1" },
      };
    } else if (request.method === "tools/list") result = { tools };
    else if (request.method === "tools/call") {
      const call = { tool: request.params.name, arguments: request.params.arguments ?? {} };
      Deno.writeTextFileSync(logFile, JSON.stringify(call) + "\\n", { append: true });
      result = { content: [{ type: "text", text: label + " ran " + call.tool }] };
    }
    send({ jsonrpc: "2.0", id: request.id, result });
  }
}
`;

/**
 * Writes the server's script under `dir` (outside any workspace a test
 * guards) and returns its entry. `label` names its log file and its answers.
 * `failWith`: the server writes this line to stderr and exits instead.
 */
export async function scriptedMcpServer(
  dir: string,
  label: string,
  tools: ScriptedTool[],
  options: { failWith?: string } = {},
): Promise<ScriptedServer> {
  const script = path.join(dir, "scripted_mcp_server.js");
  await Deno.writeTextFile(script, SERVER);
  const log = path.join(dir, `mcp-calls-${label.replace(/[^a-zA-Z0-9_-]/g, "_")}.jsonl`);
  const args = ["run", "--quiet", "-A", script, label, log, JSON.stringify(tools)];
  if (options.failWith !== undefined) args.push(options.failWith);
  return {
    entry: { command: Deno.execPath(), args },
    async calls() {
      const text = await Deno.readTextFile(log).catch(() => "");
      return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
    },
  };
}
