/**
 * A run holds the session it writes, so two runs continuing one session
 * cannot interleave their histories. This side of skiff (not the engine's
 * Worker, which may not read /proc) picks the session a selector names and
 * claims it before the engine reads anything of it; a session held by
 * another live run is waited for briefly, then refused (exit 2) with that
 * run's id and process. A new session is held from its creation (the engine
 * inserts it with `spec.run`). While the run lasts this side renews a
 * heartbeat; at the end the engine lets go as it closes its store (engine/handle.ts),
 * and this side too when it has one open. This side opens the store only
 * when it must (a session named to claim, the first beat, a cut start): a
 * `skiff tool` call ends before any beat, and loads no SQLite here. A run
 * killed with -9 lets go of nothing, and needs not: src/store/session_locks.ts
 * sees its process is gone.
 */
import { backgroundTicks } from "../lib/background_ticks.ts";
import { UsageError } from "../contracts/usage_error.ts";
import type { Store } from "../store/store.ts";
import { HEARTBEAT_MS, type RunOwner } from "../store/run_owner.ts";
import type { SessionHolder } from "../store/session_locks.ts";
import type { EngineSpec } from "../engine/types.ts";
import { selectSession, type SessionSelector } from "../engine/select_session.ts";
import type { SkiffEvent } from "../contracts/events.ts";
import { endCutStart, type StartCut } from "../engine/start_cut.ts";

/** How long a run waits for a session another run holds. */
export const CLAIM_WAIT_MS = 3000;
const CLAIM_POLL_MS = 100;

export interface HoldOptions {
  /** @default CLAIM_WAIT_MS */
  waitMs?: number;
  /** @default a timer */
  sleep?: (ms: number) => Promise<void>;
}

/** The sessions one run holds: claimed as they open, let go of at its end. */
export interface SessionHold {
  /**
   * Claims the session `selector` names (waiting briefly for another run to
   * let go), then opens it with `openEngine`, given the selector to use; a
   * new session is held by the engine as it creates it. Starts the heartbeat.
   */
  open(
    selector: SessionSelector,
    openEngine: (selector: SessionSelector) => Promise<string>,
  ): Promise<string>;
  /** Closes the engine with `closeEngine`, then lets go of every session the run holds. */
  close(closeEngine: () => Promise<void>): Promise<void>;
  /**
   * Stops the engine with `stopEngine` (the run keeps holding its session),
   * ends the session as cut by `cut`, then lets go (start_cut.ts).
   */
  endCutStart(stopEngine: () => Promise<void>, cut: StartCut): Promise<SkiffEvent[]>;
}

/**
 * The hold of `spec.run`. Needs read and write access to the data folder,
 * and read access to /proc to tell a dead holder.
 */
export function sessionHold(
  spec: EngineSpec & { run: RunOwner },
  options: HoldOptions = {},
): SessionHold {
  const run = spec.run;
  let store: Store | undefined;
  let stopBeating: (() => void) | undefined;
  let ended = false;
  const stopHolding = () => {
    stopBeating?.();
    stopBeating = undefined;
    try {
      store?.locks.release(run.run_id);
    } finally {
      store?.close();
      store = undefined;
    }
  };
  return {
    async open(selector, openEngine) {
      // A new session is held by the engine as it creates it; the heartbeat
      // starts here, and opens this side's store at its first beat. It is no
      // timer: a process's first one loads Deno's timers.
      const names = selector.sessionId !== undefined || selector.continueLatest === true;
      if (names) store ??= await openStoreHere(spec.dataDir);
      const existing = store ? selectSession(store, spec.workspace, selector) : undefined;
      if (store && existing) await claimOrWait(store, existing, run, options);
      const opening = openEngine(existing ? { sessionId: existing } : selector);
      // A beat that fails (the store busy past its timeout) is skipped; the
      // next one renews the claim, which only counts where /proc cannot tell.
      stopBeating ??= backgroundTicks(HEARTBEAT_MS, async () => {
        const here = store ?? await openStoreHere(spec.dataDir);
        // Let go of meanwhile: the store opened for this beat is not kept.
        if (stopBeating === undefined) return here === store ? undefined : here.close();
        store = here;
        store.locks.beat(run.run_id);
      });
      return await opening;
    },
    async close(closeEngine) {
      if (ended) return;
      ended = true;
      try {
        await closeEngine();
      } finally {
        stopHolding();
      }
    },
    // The engine is stopped first, so it writes nothing more; a later close() has nothing to do.
    async endCutStart(stopEngine, cut) {
      ended = true;
      try {
        // The run ends by the limit whether or not the stopped engine closes cleanly.
        // It keeps holding its session, which endCutStart finds and ends; stopHolding lets go.
        await stopEngine().catch(() => {});
        store ??= await openStoreHere(spec.dataDir);
        return endCutStart(store, spec, cut);
      } finally {
        stopHolding();
      }
    },
  };
}

/**
 * The store, loaded at its first use on this side: a `skiff tool` call needs
 * none here, and loading SQLite costs the terminal side time (docs/performance.md).
 */
async function openStoreHere(dataDir: string): Promise<Store> {
  const { openStore } = await import("../store/store.ts");
  return openStore(dataDir);
}

async function claimOrWait(
  store: Store,
  sessionId: string,
  run: RunOwner,
  options: HoldOptions,
): Promise<void> {
  const sleep = options.sleep ??
    ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const waitMs = options.waitMs ?? CLAIM_WAIT_MS;
  for (let waited = 0;; waited += CLAIM_POLL_MS) {
    const claim = store.locks.claim(sessionId, run);
    if (claim.kind === "claimed") return;
    if (waited >= waitMs) throw sessionBusy(sessionId, claim.holder, waitMs);
    await sleep(CLAIM_POLL_MS);
  }
}

function sessionBusy(sessionId: string, holder: SessionHolder, waitMs: number): UsageError {
  const since = new Date(holder.acquired_at).toISOString().replace("T", " ").slice(0, 19);
  const where = holder.host ? ` on ${holder.host}` : "";
  return new UsageError(
    `session ${sessionId} is being written by another skiff run (${holder.run_id}, process ${holder.pid}${where}, since ${since} UTC); waited ${
      waitMs / 1000
    } s. Let that run finish (or stop it: kill ${holder.pid}) and try again, or start a new session without --continue/--session.`,
  );
}
