/**
 * `--json` output: one event object per line on stdout, exactly as stored.
 * Writes are synchronous so lines never interleave and nothing is lost when
 * the process exits right after.
 */
import type { SkiffEvent } from "../contracts/events.ts";

const encoder = new TextEncoder();

export function writeAll(target: { writeSync(data: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += target.writeSync(bytes.subarray(offset));
}

export function jsonlRenderer(out = Deno.stdout): (event: SkiffEvent) => void {
  return (event) => writeAll(out, JSON.stringify(event) + "\n");
}
