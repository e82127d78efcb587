/**
 * An ACP prompt (text, resource links, embedded resources) as the one text
 * skiff's engine takes. A linked file is read with the session's own `read`
 * tool, so the read is judged by the same rules as the model's and counts
 * for read-before-edit; an embedded resource is the editor's text (an
 * unsaved buffer, a selection) and goes in as given.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { fencedBlock } from "../../lib/markdown_fence.ts";

/** Reads a file through the session's tools; the refusal or failure in words otherwise. */
export type ReadFile = (
  file: string,
) => Promise<{ ok: true; text: string } | { ok: false; why: string }>;

/** A `file://` URI's path; undefined for any other scheme. */
export function filePathOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === "file:" ? decodeURIComponent(url.pathname) : undefined;
  } catch {
    return undefined;
  }
}

/** The prompt's text, and the title a new session takes: the typed text alone. */
export async function promptText(
  blocks: readonly acp.ContentBlock[],
  read: ReadFile,
): Promise<{ prompt: string; title: string }> {
  const typed: string[] = [];
  const attached: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        typed.push(block.text);
        break;
      case "resource_link": {
        const file = filePathOf(block.uri);
        if (!file) {
          attached.push(`The user linked ${block.uri} (${block.name}); it was not read.`);
          break;
        }
        const result = await read(file);
        attached.push(
          result.ok
            ? `The user attached ${file}:\n${fencedBlock(result.text.trimEnd())}`
            : `The user attached ${file}, which could not be read: ${result.why}`,
        );
        break;
      }
      case "resource": {
        const resource = block.resource;
        const name = filePathOf(resource.uri) ?? resource.uri;
        attached.push(
          "text" in resource
            ? `The user's editor sent the text of ${name}:\n${fencedBlock(resource.text.trimEnd())}`
            : `The user's editor sent ${name} as binary data, which is not included.`,
        );
        break;
      }
      default:
        attached.push(`The user's editor sent ${block.type} content, which skiff does not take.`);
    }
  }
  const text = typed.join("\n").trim();
  return {
    prompt: [text, ...attached].filter(Boolean).join("\n\n"),
    title: text.split("\n")[0] || "(attachments)",
  };
}
