/**
 * Answers the engine's approval requests on the terminal side. Headless runs
 * never wait for a person: the engine's own headless broker refuses before a
 * question gets here, and this answers "deny" should one arrive anyway.
 *
 * Questions are drawn on stderr, the terminal a run is judged interactive by:
 * stdout carries the answer (`skiff run "…" > answer.txt`) or JSON Lines, and
 * a prompt written there would be lost in the file while the run waits.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../engine/types.ts";
import type { ChoiceAnswer, PromptFunctions } from "../ui/interactive_broker.ts";
import { neutraliseControls } from "../ui/safe_text.ts";

/** What the collapsed question shows after Ctrl-C or Esc, instead of the option under the cursor. */
export const INTERRUPTED_LABEL = "Interrupted: not run";

async function stderrPrompts(): Promise<PromptFunctions> {
  const clack = await import("@clack/prompts");
  const { stderr: output, stdin } = await import("node:process");
  return {
    select: async (options) => {
      // On a cancel clack redraws the option under the cursor ("Allow once")
      // as the answer. Our listener hears the key first and relabels them all.
      const relabel = (_text: unknown, key?: { name?: string; ctrl?: boolean }) => {
        if ((key?.ctrl && key.name === "c") || key?.name === "escape") {
          for (const option of options.options) option.label = INTERRUPTED_LABEL;
        }
      };
      stdin.on("keypress", relabel);
      try {
        return await clack.select<ChoiceAnswer>({ ...options, output });
      } finally {
        stdin.off("keypress", relabel);
      }
    },
    text: (options) => clack.text({ ...options, output }),
    note: (message, title) => clack.note(message, title, { output }),
    isCancel: (value): value is symbol => clack.isCancel(value),
  };
}

type Broker = { ask(request: ApprovalRequest): Promise<ApprovalAnswer> };

async function terminalBroker(): Promise<Broker> {
  const { InteractiveBroker } = await import("../ui/interactive_broker.ts");
  return new InteractiveBroker(await stderrPrompts());
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
