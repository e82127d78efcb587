/**
 * Tools about the session's own work: the todo list, subagent tasks and
 * skills. Task and skill tools are built per session (they need its agents
 * and skills), so this group exports their factories.
 */
export { todoReadTool, todoWriteTool } from "./todo.ts";
export {
  createTaskTool,
  type SubagentRunner,
  type SubagentRunRequest,
  type SubagentRunResult,
} from "./task.ts";
export { createSkillTool } from "./skill.ts";
export { createDoneProposeTool, type DoneProposal } from "./done_propose.ts";
export { createHarnessTools, HARNESS_TOOL_NAMES } from "./harness_tools.ts";
export { SESSION_TOOL_SCHEMAS } from "./session_tool_schemas.ts";
export {
  changedSince,
  type HarnessDeps,
  harnessDeps,
  memoryPlace,
  memoryScope,
} from "./harness_scope.ts";
export { harnessStatus } from "./harness_status.ts";
export { recordVerification } from "./harness_verify.ts";
export { handoffPacketText } from "./harness_handoff.ts";
