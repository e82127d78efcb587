/**
 * When a server refuses part of a request that can be left out or renamed,
 * the provider asks again at once instead of failing the run: older servers
 * reject `stream_options`, and OpenAI's reasoning models (under names we do
 * not recognise, such as a custom deployment) want `max_completion_tokens`
 * where others take `max_tokens`. These read the refusal.
 */
import type { AttemptFailure } from "../retry_policy.ts";

/** A 400/422 complaining about `stream_options`, which servers older than it reject. */
export function refusesStreamOptions(failure: AttemptFailure): boolean {
  return (failure.status === 400 || failure.status === 422) &&
    /stream_options|include_usage/i.test(failure.serverMessage ?? "");
}

export type OutputLimitField = "max_tokens" | "max_completion_tokens";

/**
 * A 400 saying the output-limit field we sent is not supported and naming
 * the other one ("Unsupported parameter: 'max_tokens' … Use
 * 'max_completion_tokens' instead"): the field to send instead.
 */
export function wantsOtherLimitField(
  failure: AttemptFailure,
  body: Record<string, unknown>,
): OutputLimitField | undefined {
  if (failure.status !== 400 && failure.status !== 422) return undefined;
  const said = failure.serverMessage ?? "";
  const sent: OutputLimitField = "max_tokens" in body ? "max_tokens" : "max_completion_tokens";
  const other: OutputLimitField = sent === "max_tokens" ? "max_completion_tokens" : "max_tokens";
  const namesOther = new RegExp(`\\b${other}\\b`).test(said);
  const namesSent = new RegExp(`\\b${sent}\\b`).test(said);
  return namesOther && namesSent && /unsupported|not supported|instead/i.test(said)
    ? other
    : undefined;
}
