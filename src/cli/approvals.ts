/**
 * Answers the engine's approval requests on the terminal side. Headless runs
 * never wait for a person: the engine's own headless broker refuses before a
 * question gets here, and this answers "deny" should one arrive anyway. The
 * question itself is src/ui/interactive_broker.ts's, drawn on stderr.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../engine/types.ts";
import { neutraliseControls } from "../ui/safe_text.ts";

type Broker = { ask(request: ApprovalRequest): Promise<ApprovalAnswer> };

async function terminalBroker(): Promise<Broker> {
  const { InteractiveBroker } = await import("../ui/interactive_broker.ts");
  return new InteractiveBroker();
}

/**
 * A question that cannot be put (the terminal went away) is a refusal, never
 * a crash that leaves the engine waiting. `makeBroker` is for tests.
 */
export function approvalPrompter(
  interactive: boolean,
  makeBroker: () => Promise<Broker> = terminalBroker,
): (request: ApprovalRequest) => Promise<ApprovalAnswer> {
  if (!interactive) return () => Promise.resolve("deny");
  let broker: Promise<Broker> | undefined;
  return async (request) => {
    try {
      broker ??= makeBroker();
      return await (await broker).ask(request);
    } catch (error) {
      console.error(neutraliseControls(
        `skiff: could not ask about ${request.tool} (${
          (error as Error).message
        }); refused. Use --allow or --yes to decide ahead.`,
      ));
      return "deny";
    }
  };
}
