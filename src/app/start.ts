/**
 * Where the engine runs. Today: in this thread. The permission-restricted
 * Worker host plugs in here.
 */
import type { EngineIO, EngineSpec } from "./engine_types.ts";
import { type EngineHandle, startInProcess } from "./host.ts";

export function startEngine(spec: EngineSpec, io: EngineIO): Promise<EngineHandle> {
  return startInProcess(spec, io);
}
