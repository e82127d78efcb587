/**
 * The harness memory tools of one session, built together: they share the
 * store's memory table and the scope (git root or workspace).
 */
import type { Tool } from "../tool.ts";
import type { MemoryTable } from "../../store/memory.ts";
import { harnessDeps } from "./harness_scope.ts";
import { createRememberTool } from "./remember.ts";
import { createHarnessRecordTool } from "./harness_record.ts";
import { createHarnessStatusTool } from "./harness_status.ts";
import { createHarnessHandoffTool } from "./harness_handoff.ts";
import { createHarnessVerifyTool } from "./harness_verify.ts";

export const HARNESS_TOOL_NAMES = [
  "remember",
  "harness_record",
  "harness_status",
  "harness_handoff",
  "harness_verify",
] as const;

export function createHarnessTools(
  memory: MemoryTable,
  workspace: string,
  sessionId: string,
): Tool[] {
  const deps = harnessDeps(memory, workspace, sessionId);
  return [
    createRememberTool(deps),
    createHarnessRecordTool(deps),
    createHarnessStatusTool(deps),
    createHarnessHandoffTool(deps),
    createHarnessVerifyTool(deps),
  ] as Tool[];
}
