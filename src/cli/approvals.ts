/**
 * Answers the engine's approval requests on the terminal side. Headless runs
 * never wait for a person: every ask is denied and reported.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../app/engine_types.ts";

export function approvalPrompter(
  interactive: boolean,
): (request: ApprovalRequest) => Promise<ApprovalAnswer> {
  if (!interactive) return () => Promise.resolve("deny");
  return async (request) => {
    const { askApproval } = await import("../ui/approval_prompt.ts");
    return askApproval(request);
  };
}
