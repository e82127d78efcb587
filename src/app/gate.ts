/**
 * The permission gate the loop consults for every call. Interim: allows
 * everything (the foundation's allow-all policy); the policy table replaces it.
 */
import type { PermissionGate } from "../session/loop.ts";
import type { EventBodies, EventType } from "../session/events.ts";
import type { EngineIO, EngineSpec } from "./engine_types.ts";

export function buildGate(
  _spec: EngineSpec,
  _io: EngineIO,
  _emit: <K extends EventType>(type: K, body: EventBodies[K]) => void,
): PermissionGate {
  return {
    check: () => Promise.resolve({ allowed: true }),
    denials: () => [],
  };
}
