/**
 * Input history kept per project across sessions: one JSON string per line
 * in `<data dir>/history/<hash of the workspace path>.jsonl`, newest last,
 * trimmed to the last `limit` entries when read. Needs read and write access
 * to the data folder.
 */
import * as path from "../../../lib/path.ts";

/** @default 1000 */
export const HISTORY_LIMIT = 1000;

export async function historyFile(dataDir: string, workspace: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(workspace));
  const hex = [...new Uint8Array(digest)].slice(0, 12)
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return path.join(dataDir, "history", `${hex}.jsonl`);
}

/** The entries stored, oldest first; none when the file is missing or unreadable. */
export function readHistory(file: string, limit = HISTORY_LIMIT): string[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const entry = JSON.parse(line);
      if (typeof entry === "string") entries.push(entry);
    } catch { /* a torn line from a crash: skip it */ }
  }
  return entries.slice(-limit);
}

/** Append one entry; a failure to write is not worth stopping the session for. */
export function appendHistory(file: string, entry: string): void {
  try {
    Deno.mkdirSync(path.dirname(file), { recursive: true });
    Deno.writeTextFileSync(file, JSON.stringify(entry) + "\n", { append: true, mode: 0o600 });
  } catch { /* history is a convenience */ }
}
