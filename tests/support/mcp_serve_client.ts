/**
 * A client of `skiff mcp serve` over stdio, the MCP SDK's own, started in a
 * test sandbox's workspace with its environment: what an editor or another
 * agent connecting to skiff does.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MAIN, type Sandbox } from "./cli.ts";

/** `skiff mcp serve` with `extra` flags, connected; close it when done. */
export async function mcpServeClient(
  sandbox: Sandbox,
  extra: string[] = [],
): Promise<{
  client: Client;
  close: () => Promise<void>;
  transport: StdioClientTransport;
  /** What the server wrote to stderr so far. */
  stderr: () => string;
}> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-all",
      "--unstable-worker-options",
      "--no-prompt",
      MAIN,
      "mcp",
      "serve",
      ...extra,
    ],
    cwd: sandbox.workspace,
    env: sandbox.env,
    stderr: "pipe",
  });
  const stderr = collectStderr(transport);
  const client = new Client({ name: "skiff-test", version: "1" });
  await client.connect(transport);
  return { client, close: () => client.close(), transport, stderr: stderr.text };
}

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };

/** The text of a tool call's result. */
export const toolText = (result: unknown) =>
  (result as ToolText).content.map((part) => part.text).join("\n");

/** Everything the server has written to stderr so far, and from now on, as one growing text. */
function collectStderr(transport: StdioClientTransport): { text(): string } {
  let seen = "";
  const stream = transport.stderr as
    | (NodeJS.ReadableStream & { on(event: "data", listener: (chunk: unknown) => void): void })
    | null;
  stream?.on("data", (chunk) => (seen += String(chunk)));
  return { text: () => seen };
}
