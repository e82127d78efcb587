/**
 * Identifiers. Message and part ids sort by creation time: a prefix (`msg_`,
 * `prt_`), the millisecond clock in fixed-width base 36, then random
 * characters so two ids made in the same millisecond (or by two processes)
 * never collide. Session ids are typed by people, who type their first few
 * characters: those are random, so two sessions started in the same minute
 * differ at once (ids made before were time-first; both kinds are found
 * alike, by the whole id or a unique prefix).
 */

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 12;

function randomChars(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let random = "";
  // `% 36` favours a few letters slightly; harmless for ids that only need to be unique.
  for (const byte of bytes) random += ALPHABET[byte % 36];
  return random;
}

function timeChars(now: number): string {
  return Math.floor(now).toString(36).padStart(9, "0");
}

export function newId(prefix: string, now: number = Date.now()): string {
  return `${prefix}_${timeChars(now)}${randomChars(RANDOM_LENGTH)}`;
}

/** `ses_`, twelve random characters, then the clock (kept for whoever reads raw ids). */
export function newSessionId(now: number = Date.now()): string {
  return `ses_${randomChars(RANDOM_LENGTH)}${timeChars(now)}`;
}
