/**
 * Where the engine runs: in a permission-restricted Worker (the default, the
 * second layer of containment), or in this thread when SKIFF_ENGINE=inline
 * (debugging only; the policy and the OS sandbox still apply).
 */
import type { EngineIO, EngineSpec } from "./engine_types.ts";
import { type EngineHandle, startInProcess } from "./host.ts";
import { startInWorker } from "./worker_host.ts";
import { ensureDataDir } from "../store/data_dir.ts";
import { currentRunOwner } from "../store/run_owner.ts";
import { holdingSessions } from "./session_hold.ts";
import { savingDoneCriteria } from "./done_criteria.ts";

export async function startEngine(spec: EngineSpec, io: EngineIO): Promise<EngineHandle> {
  // Here, with this process's rights: a data folder that cannot be made is the user's to fix.
  ensureDataDir(spec.dataDir);
  // The sessions this run writes are held for it (src/app/session_hold.ts).
  const held = { ...spec, run: currentRunOwner() };
  const engine = Deno.env.get("SKIFF_ENGINE") === "inline"
    ? await startInProcess(held, io)
    : await startInWorker(held, io);
  // What a plan run proposed as done is written here, with this process's rights.
  return savingDoneCriteria(holdingSessions(engine, held), spec.workspace);
}
