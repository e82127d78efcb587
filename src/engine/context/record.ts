/**
 * A compaction as the store records it: the event's figures, the pruned
 * results with the line each became, and for a summary the handoff and the
 * stored message it kept from. A resumed session replays this record
 * (src/engine/loop/history.ts), so it starts from the compacted state.
 */
import type { ChatMessage } from "../../provider/types.ts";
import type { CompactionPart } from "../loop/history.ts";
import type { CompactionDetail, CompactionEvent } from "./keeper.ts";

/**
 * The record of one compaction. `sources` knows the stored id of each
 * history message; a kept message it cannot name makes the summary not
 * replayable (a resumed session then sends the whole history and compacts it
 * again), never wrong.
 */
export function compactionRecord(
  event: CompactionEvent,
  detail: CompactionDetail,
  sources: WeakMap<ChatMessage, string>,
): CompactionPart {
  const keptFrom = detail.keptFrom && sources.get(detail.keptFrom);
  const replayable = detail.handoff && (!detail.keptFrom || keptFrom);
  return {
    type: "compaction",
    kind: event.kind,
    trigger: event.trigger,
    tokens_before: event.tokens_before,
    tokens_after: event.tokens_after,
    pruned: detail.pruned,
    ...(replayable
      ? { handoff: detail.handoff!.content ?? "", kept_from: keptFrom, replaced: event.replaced }
      : {}),
    ...(event.fallback ? { fallback: event.fallback } : {}),
  };
}
