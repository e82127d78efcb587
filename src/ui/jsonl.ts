/**
 * `--json` output: one event object per line on stdout, as stored except
 * that token-shaped secrets are taken out (a CI job uploads these lines as
 * an artifact: contracts/redact.ts). Writes are synchronous so lines never
 * interleave and nothing is lost when the process exits right after.
 */
import type { SkiffEvent } from "../contracts/events.ts";
import { redactSecrets } from "../contracts/redact.ts";

const encoder = new TextEncoder();

/** Streamed text held back at most this long while no space comes. */
const MAX_HELD_CHARACTERS = 4096;

export function writeAll(target: { writeSync(data: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += target.writeSync(bytes.subarray(offset));
}

type DeltaEvent = Extract<SkiffEvent, { type: "message.delta" | "reasoning.delta" }>;

/**
 * Writes each event as a line. A model's streamed text comes in pieces of a
 * few characters, so a token could be split over two `message.delta` (or
 * `reasoning.delta`) lines and pass the redaction: the text after the last space is held back and
 * goes out with the next piece (or before the next other event), so a word
 * is never split between lines.
 */
export function jsonlRenderer(out = Deno.stdout): (event: SkiffEvent) => void {
  const line = (event: SkiffEvent) => writeAll(out, redactSecrets(JSON.stringify(event)) + "\n");
  let held: DeltaEvent | null = null;
  const release = () => {
    if (held) line(held);
    held = null;
  };
  return (event) => {
    if (event.type !== "message.delta" && event.type !== "reasoning.delta") {
      release();
      line(event);
      return;
    }
    if (
      held &&
      (held.type !== event.type || held.session_id !== event.session_id || held.turn !== event.turn)
    ) release();
    const text = (held?.text ?? "") + event.text;
    const first: DeltaEvent = held ?? event;
    const cut = Math.max(text.search(/\s\S*$/) + 1, 0);
    if (cut > 0) line({ ...first, text: text.slice(0, cut) });
    const rest = text.slice(cut);
    held = rest ? { ...event, text: rest } : null;
    if (held && held.text.length > MAX_HELD_CHARACTERS) release();
  };
}
