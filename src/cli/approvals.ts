/**
 * Answers the engine's approval requests on the terminal side. Headless runs
 * never wait for a person: the engine's own headless broker refuses before a
 * question gets here, and this answers "deny" should one arrive anyway.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../app/engine_types.ts";

export function approvalPrompter(
  interactive: boolean,
): (request: ApprovalRequest) => Promise<ApprovalAnswer> {
  if (!interactive) return () => Promise.resolve("deny");
  let broker: { ask(request: ApprovalRequest): Promise<ApprovalAnswer> } | undefined;
  return async (request) => {
    if (!broker) {
      const { InteractiveBroker } = await import("../policy/interactive_broker.ts");
      broker = new InteractiveBroker();
    }
    return broker.ask(request);
  };
}
