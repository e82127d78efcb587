/**
 * Identifiers that sort by creation time: a prefix (`ses_`, `msg_`, `prt_`),
 * the millisecond clock in fixed-width base 36, then random characters so two
 * ids made in the same millisecond (or by two processes) never collide.
 */

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 12;

export function newId(prefix: string, now: number = Date.now()): string {
  const time = Math.floor(now).toString(36).padStart(9, "0");
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_LENGTH));
  let random = "";
  // `% 36` favours a few letters slightly; harmless for ids that only need to be unique.
  for (const byte of bytes) random += ALPHABET[byte % 36];
  return `${prefix}_${time}${random}`;
}
