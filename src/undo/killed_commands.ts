/**
 * What a killed run left for undo to finish, settled before `skiff undo`
 * reads a workspace's snapshots. Commands killed while they ran (the journal
 * holds their start and no end) are surveyed now, from the tree kept before
 * each ran, and their changes filed as the prompt's snapshots as they would
 * have been when they ended; every change in the workspace since such a
 * command began counts as its own, since nothing else can tell them apart
 * after a kill. And leftover temporary files of killed writes are swept.
 */
import type { Store } from "../store/store.ts";
import { isWithin } from "../sandbox/paths.ts";
import { changesOfKilledCommand } from "./command_snapshots.ts";
import { sweepTempFiles } from "./temp_sweep.ts";
import { undoStateOf } from "./undo.ts";

/** A killed command whose changes could not be surveyed, and why. */
export interface UnsurveyedCommand {
  sessionId: string;
  prompt: number;
  reason: string;
}

export interface SettledWorkspace {
  /** Temporary files removed. */
  swept: string[];
  unsurveyed: UnsurveyedCommand[];
}

/**
 * Sweeps `workspace`'s leftover temporary files and files the changes of
 * its killed commands (a path the prompt already has a snapshot of keeps the
 * earlier one). While a run is live there, its commands are not taken for
 * killed and only stale temporary files go. Needs `--allow-run=git` and read
 * and write access to the workspace and the data folder.
 */
export async function settleKilledRuns(store: Store, workspace: string): Promise<SettledWorkspace> {
  const live = store.locks.liveIn(workspace);
  const swept = sweepTempFiles(store.undoJournal.foldersWritten(workspace), { onlyStale: live });
  const unsurveyed: UnsurveyedCommand[] = [];
  for (const { sessionId, prompt } of store.undoJournal.promptsWithPendingCommands(workspace)) {
    if (live) {
      unsurveyed.push({
        sessionId,
        prompt,
        reason: "a command of this prompt never finished and a skiff run is live in the " +
          "workspace, so its changes cannot be told from that run's; undo again once it ends",
      });
      continue;
    }
    unsurveyed.push(...await fileKilledCommands(store, sessionId, prompt));
  }
  return { swept, unsurveyed };
}

async function fileKilledCommands(
  store: Store,
  sessionId: string,
  prompt: number,
): Promise<UnsurveyedCommand[]> {
  const unsurveyed: UnsurveyedCommand[] = [];
  for (const { id, survey, createdAt } of store.undoJournal.pendingCommands(sessionId, prompt)) {
    let changes;
    try {
      changes = await changesOfKilledCommand(survey);
    } catch (error) {
      unsurveyed.push({
        sessionId,
        prompt,
        reason: "a command of this prompt was killed while it ran, and what it changed could " +
          `not be surveyed (${(error as Error).message}); its changes are left as they are`,
      });
      continue;
    }
    for (const change of changes) {
      // A session limited to some paths changed only those (as engine.ts files them).
      if (survey.owns.length && !survey.owns.some((owned) => isWithin(owned, change.path))) {
        continue;
      }
      store.snapshots.save(sessionId, prompt, change.path, change.before, change.mode, createdAt);
      store.undoJournal.expect(sessionId, prompt, change.path, undoStateOf(change.path));
    }
    store.undoJournal.complete(id);
  }
  return unsurveyed;
}
