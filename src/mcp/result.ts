/**
 * Turns an MCP tool result into the text the model reads. Text passes
 * through; images, audio and binary resources are described rather than
 * pasted, since the chat endpoint takes text tool results.
 */

interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

export interface McpCallResult {
  content?: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

export function formatMcpResult(result: McpCallResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    parts.push(formatBlock(block));
  }
  if (!parts.length && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (!parts.length && result.toolResult !== undefined) {
    parts.push(JSON.stringify(result.toolResult, null, 2));
  }
  return parts.join("\n") || "(the tool returned no content)";
}

function formatBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType ?? "unknown type"}, ${
        approxBytes(block.data)
      } bytes]`;
    case "resource_link":
      return `[resource link ${block.uri ?? ""}${block.name ? ` (${block.name})` : ""}]`;
    case "resource": {
      const resource = block.resource ?? {};
      if (typeof resource.text === "string") {
        return `[resource ${resource.uri ?? ""}]\n${resource.text}`;
      }
      return `[resource ${resource.uri ?? ""}, ${resource.mimeType ?? "binary"}, ${
        approxBytes(resource.blob)
      } bytes]`;
    }
    default:
      return JSON.stringify(block);
  }
}

/** Size of base64 data once decoded. */
function approxBytes(base64?: string): number {
  if (!base64) return 0;
  return Math.floor(base64.length * 3 / 4) -
    (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);
}
