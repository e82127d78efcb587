/**
 * `skiff compact <session> [--focus "…"]`: compacts a stored session now.
 * The model writes the structured handoff of the older turns (with the focus
 * added to its prompt); it is checked and recorded like an automatic one, so
 * the next `skiff run --continue` sends the handoff and the recent turns
 * instead of the whole conversation. Nothing is deleted: the store keeps
 * every message, and `skiff sessions show` marks the compaction. A summary
 * that fails falls back to pruning old tool outputs, and says so.
 */
import { prepare } from "../../host/setup.ts";
import { compactSession, describeCompaction } from "../../engine/compact_session.ts";
import { makeEvent } from "../../contracts/events.ts";
import type { CompactionEvent } from "../../engine/context/keeper.ts";
import { currentRunOwner } from "../../store/run_owner.ts";
import type { Session, Store } from "../../store/store.ts";
import { noSuchSession, withStore } from "../store_access.ts";
import { writeAll } from "../../ui/jsonl.ts";
import { ExitCode, UsageError } from "../exit_codes.ts";
import { reportFatal } from "../report_fatal.ts";

export interface CompactOptions {
  focus?: string;
  model?: string;
}

export async function compactCommand(id: string, options: CompactOptions): Promise<number> {
  try {
    return await withStore((store) => compactStored(store, id, options));
  } catch (error) {
    return reportFatal(error);
  }
}

async function compactStored(store: Store, id: string, options: CompactOptions): Promise<number> {
  const session = store.getSession(id);
  if (!session) {
    throw new UsageError(noSuchSession(id));
  }
  const model = options.model ?? session.model;
  // The session's own workspace decides the config (its models, its endpoint).
  const { spec, config } = await prepare({ dir: session.workspace, model }, true);
  const owner = currentRunOwner();
  const claim = store.locks.claim(session.id, owner);
  if (claim.kind !== "claimed") {
    throw new UsageError(
      `session ${session.id} is being written by another skiff run (process ${claim.holder.pid}). ` +
        "Let it finish, then compact.",
    );
  }
  try {
    const { createProvider } = await import("../../provider/create_provider.ts");
    const outcome = await compactSession({
      store,
      session,
      provider: createProvider(spec.provider),
      model,
      config,
      focus: options.focus,
      warn: (message) => console.error(`skiff: ${message}`),
    });
    if (!outcome.changed) {
      if (outcome.failed) {
        console.error(
          `skiff: could not compact ${session.id}: ${
            outcome.reason.replace(/\.$/, "")
          }. Nothing was changed.`,
        );
        return ExitCode.failed;
      }
      print(
        `Nothing to compact in ${session.id}: ${
          outcome.reason.replace(/\.$/, "")
        }. Nothing was changed.`,
      );
      return ExitCode.ok;
    }
    const event = outcome.event;
    store.appendEvent(makeEvent("context.compacted", session.id, event));
    print(report(session, event));
    return event.kind === "summary" ? ExitCode.ok : ExitCode.failed;
  } finally {
    store.locks.release(owner.run_id);
  }
}

function report(session: Session, event: CompactionEvent): string {
  return `Compacted ${session.id}: ${describeCompaction(event)}.\n` +
    `The full conversation stays in the store (skiff sessions show ${session.id}); ` +
    `continue from the compacted state with: skiff run --session ${session.id} "…"`;
}

function print(text: string): void {
  writeAll(Deno.stdout, text + "\n");
}
