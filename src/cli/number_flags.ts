/**
 * A number given on the command line (`--max-turns 20`, `-j 4`,
 * `--max-cost 0.50`), read the one way every command reads it: an absent
 * flag is `undefined`, and a value the flag does not take is a `UsageError`
 * that names the flag, what it takes and what was given.
 */
import { UsageError } from "./exit_codes.ts";

/** What a number flag takes: a whole count above 0, or US dollars above 0. */
export type NumberFlagKind = "whole" | "dollars";

const KINDS: Record<NumberFlagKind, {
  accepts: (text: string, value: number) => boolean;
  refusal: (flag: string, text: string) => string;
}> = {
  whole: {
    accepts: (_text, value) => Number.isInteger(value) && value > 0,
    refusal: (flag, text) => `${flag} must be a positive whole number, got "${text}".`,
  },
  dollars: {
    accepts: (text, value) => /^\d*\.?\d+$/.test(text.trim()) && value > 0,
    refusal: (flag, text) => `${flag} takes US dollars above 0, such as 0.50; got "${text}".`,
  },
};

/**
 * The number `flag` was given, or undefined when it was not given; throws a
 * `UsageError` saying what to pass when `text` is not a number of `kind`.
 * @default kind "whole"
 */
export function numberFlag(
  flag: string,
  text: string | undefined,
  kind: NumberFlagKind = "whole",
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!KINDS[kind].accepts(text, value)) throw new UsageError(KINDS[kind].refusal(flag, text));
  return value;
}
