/**
 * Mistral's history rules, which other servers do not have: a tool call id
 * is exactly 9 letters or digits ("Tool call id was call_… but must be a-z,
 * A-Z, 0-9, with a length of 9"), and a user message may not follow a tool
 * message ("Unexpected role 'user' after role 'tool'").
 * https://docs.mistral.ai/capabilities/function_calling/
 */

const VALID_ID = /^[a-zA-Z0-9]{9}$/;
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * An id Mistral accepts for `id`: itself when already valid, else 9
 * characters derived from it (the same every time, so a call and its result
 * keep matching, and different ids stay different but by a 62^9 chance).
 */
export function mistralCallId(id: string): string {
  if (VALID_ID.test(id)) return id;
  // FNV-1a, 64 bits: enough spread for the ids of one session.
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(id)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  }
  let out = "";
  for (let index = 0; index < 9; index++) {
    out += ALPHABET[Number(hash % 62n)];
    hash /= 62n;
  }
  return out;
}

/**
 * Put between a tool result and a user message, which Mistral refuses to
 * see side by side: the model reads that it had the results.
 */
export const BRIDGE_AFTER_TOOLS = { role: "assistant", content: "I have the tool results." };
