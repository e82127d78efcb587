/**
 * The session tools' names and zod schemas. Each tool is made per session,
 * but its schema is a module constant, the same for every session, so
 * src/tools/registry.ts sends parameters converted ahead of time, as for the
 * built-in tools (scripts/gen_tool_parameters.ts).
 */
import type { Tool } from "../tool.ts";
import { taskSchema } from "./task.ts";
import { skillSchema } from "./skill.ts";
import { doneProposeSchema } from "./done_propose.ts";
import { rememberSchema } from "./remember.ts";
import { recordSchema } from "./harness_record.ts";
import { statusSchema } from "./harness_status.ts";
import { handoffSchema } from "./harness_handoff.ts";
import { verifySchema } from "./harness_verify.ts";

export const SESSION_TOOL_SCHEMAS: readonly (readonly [string, Tool["schema"]])[] = [
  ["task", taskSchema],
  ["skill", skillSchema],
  ["done_propose", doneProposeSchema],
  ["remember", rememberSchema],
  ["harness_record", recordSchema],
  ["harness_status", statusSchema],
  ["harness_handoff", handoffSchema],
  ["harness_verify", verifySchema],
];
