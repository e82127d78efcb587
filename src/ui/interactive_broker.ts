/**
 * Asks a person at the terminal: allow once, always (this session), always
 * in this project (kept in its config, or in yours when you have not trusted it), deny, or deny and
 * tell the model why
 * (the typed reason is the call's result) — with the command, diff or URL
 * shown first. Prompts come from @clack/prompts, loaded only when a question
 * is actually asked; tests pass their own `prompts`.
 *
 * Questions are drawn on stderr, the terminal a run is judged interactive by:
 * stdout carries the answer (`skiff run "…" > answer.txt`) or JSON Lines, and
 * a prompt written there would be lost in the file while the run waits.
 */
import { neutraliseControls } from "./safe_text.ts";
import type { ApprovalAnswer, ApprovalBroker, ApprovalRequest } from "../permission/broker.ts";

/**
 * The answers a list can offer; "reason" is deny with a reason typed next
 * (the answer is then `{ deny: reason }`).
 */
export type ChoiceAnswer = Exclude<ApprovalAnswer, object> | "reason";

export interface PromptFunctions {
  select(options: {
    message: string;
    options: { value: ChoiceAnswer; label: string; hint?: string }[];
    initialValue?: ChoiceAnswer;
  }): Promise<ChoiceAnswer | ApprovalAnswer | symbol>;
  /** A line of text typed; absent, deny-with-a-reason is not offered. */
  text?(options: { message: string; placeholder?: string }): Promise<string | symbol>;
  note(message: string, title?: string): void;
  isCancel(value: unknown): value is symbol;
}

/** What the collapsed question shows after Ctrl-C or Esc, instead of the option under the cursor. */
export const INTERRUPTED_LABEL = "Interrupted: not run";

/** @clack/prompts drawn on stderr: the one adapter a terminal question is put through. */
async function terminalPrompts(): Promise<PromptFunctions> {
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

/** What a reason left empty is sent as (the chat's InlineBroker says the same). */
export const NO_REASON = "(no reason given)";

/**
 * The text shown above the question. The command, diff or URL comes from the
 * model: its control characters are shown, not obeyed, so the screen cannot
 * be made to show a different command than the one being approved.
 */
export function describeRequest(request: ApprovalRequest): string {
  const { access } = request;
  const preview = access.preview ??
    (access.commands?.length ? access.commands.join("\n") : access.patterns.join("\n"));
  return neutraliseControls(`${preview}\n\n${request.decision.reason}`);
}

/**
 * The rules "always" would store, as a person reads them (`bash(echo again *)`),
 * or "" when there is none to remember. Both questions put them in the
 * choice itself: the stored rule is usually wider than the call approved.
 */
export function describeAlwaysRules(request: ApprovalRequest): string {
  return neutraliseControls(
    request.always
      .map((rule) =>
        rule.patterns.map((p) => (p === "*" ? rule.key : `${rule.key}(${p})`)).join(", ")
      )
      .filter(Boolean)
      .join(", "),
  );
}

export class InteractiveBroker implements ApprovalBroker {
  #prompts: PromptFunctions | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(prompts?: PromptFunctions) {
    this.#prompts = prompts;
  }

  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    // Parallel tool calls must not draw two prompts at once.
    const answer = this.#queue.then(() => this.#askNow(request));
    this.#queue = answer.catch(() => {});
    return answer;
  }

  async #askNow(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const prompts = this.#prompts ??= await terminalPrompts();
    if (request.subject === "project-trust") return await askTrust(prompts, request);
    prompts.note(describeRequest(request), neutraliseControls(`${request.tool} wants permission`));
    const rules = describeAlwaysRules(request);
    const options: { value: ChoiceAnswer; label: string; hint?: string }[] = [
      { value: "once", label: "Allow once" },
    ];
    if (rules) {
      options.push(
        { value: "always", label: `Always allow ${rules} in this session` },
        {
          value: "always-here",
          label: `Always allow ${rules} in this project`,
          hint: "the project config keeps it; your own config, if you have not trusted the project",
        },
      );
    }
    options.push({ value: "deny", label: "Deny" });
    if (prompts.text) {
      options.push({
        value: "reason",
        label: "Deny and tell the model why",
        hint: "type the reason next; the model reads it as the call's result",
      });
    }
    for (;;) {
      const choice = await prompts.select({
        message: "Allow this?",
        options,
        initialValue: "once",
      });
      // Ctrl-C (or Esc) at the question stops the run, as it does anywhere else.
      if (prompts.isCancel(choice)) return "interrupt";
      if (choice !== "reason") return choice;
      const reason = await prompts.text!({
        message: "Why not? (sent to the model; Esc goes back to the choices)",
        placeholder: "for example: use the staging database, not production",
      });
      // Esc or Ctrl-C while typing the reason goes back to the choices, as in the chat.
      if (prompts.isCancel(reason)) continue;
      return { deny: reason.trim() || NO_REASON };
    }
  }
}

/** The answers to "trust this project?", each meaning what it says (ApprovalRequest.subject). */
const TRUST_CHOICES: { value: ApprovalAnswer; key: string; label: string; hint: string }[] = [
  {
    value: "always-here",
    key: "y",
    label: "Trust it, and remember that",
    hint: "added to trustedProjects in your global config",
  },
  { value: "once", key: "o", label: "Trust it for this run only", hint: "asked again next time" },
  {
    value: "deny",
    key: "n",
    label: "Do not trust it",
    hint: "what its own files ask for is ignored; its deny and ask rules still apply",
  },
];

async function askTrust(
  prompts: PromptFunctions,
  request: ApprovalRequest,
): Promise<ApprovalAnswer> {
  prompts.note(describeRequest(request), "this project's own files");
  const choice = await prompts.select({
    message: "Trust this project?",
    options: TRUST_CHOICES.map(({ value, label, hint }) => ({
      value: value as ChoiceAnswer,
      label,
      hint,
    })),
    initialValue: "always-here",
  });
  return prompts.isCancel(choice) ? "interrupt" : choice as ApprovalAnswer;
}

/** The keys and the screen an inline question uses (the chat's). */
export interface InlineTerminal {
  /** Route keys to `consumer` until the returned function is called. */
  borrow(consumer: (key: { kind: string; text?: string }) => void): () => void;
  print(text: string): void;
  /**
   * Show the reason being typed in place of the input (`undefined`: show the
   * input again). Absent: the reason is typed blind and printed when sent.
   */
  editLine?(text: string | undefined, hint: string): void;
}

type Choice = [letter: string, answer: ApprovalAnswer | "reason", label: string];

/**
 * The chat's approval: the command or diff is printed into the conversation,
 * then one key answers — y/Enter once, a always (this session), h always in
 * this project, n deny, r deny and type the reason the model is given,
 * Esc/Ctrl-C stop the turn. It waits as long as it takes: nobody answering is
 * never a yes. The text being typed in the input is not touched; the question
 * borrows the keys and gives them back.
 */
export class InlineBroker implements ApprovalBroker {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly terminal: InlineTerminal) {}

  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const answer = this.#queue.then(() => this.#askNow(request));
    this.#queue = answer.catch(() => {});
    return answer;
  }

  #askNow(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const rules = describeAlwaysRules(request);
    const trust = request.subject === "project-trust";
    const choices: Choice[] = trust
      ? TRUST_CHOICES.map(({ key, value, label }) => [key, value, label.toLowerCase()])
      : [
        ["y", "once", "yes, once"],
        ...(rules
          ? [
            ["a", "always", `always ${rules} (this session)`],
            ["h", "always-here", `always ${rules} in this project`],
          ] as Choice[]
          : []),
        ["n", "deny", "no"],
        ["r", "reason", "no, and tell the model why"],
      ];
    this.terminal.print(
      [
        neutraliseControls(
          trust ? "── trust this project? ──" : `── ${request.tool} wants permission ──`,
        ),
        describeRequest(request),
        `Allow? ${choices.map(([key, , label]) => `[${key}] ${label}`).join("  ")}  [Esc] stop`,
      ].join("\n"),
    );
    return new Promise((resolve) => {
      /** Set while the reason is being typed. */
      let reason: string | undefined;
      const hint = "why? Enter sends it to the model · Esc goes back to the choices";
      const done = (answer: ApprovalAnswer, label: string) => {
        release();
        if (reason !== undefined) this.terminal.editLine?.(undefined, "");
        this.terminal.print(neutraliseControls(`→ ${label}`));
        resolve(answer);
      };
      const release = this.terminal.borrow((key) => {
        if (reason !== undefined) {
          if (key.kind === "enter") {
            const why = reason.trim() || NO_REASON;
            return done({ deny: why }, `no: ${why}`);
          }
          if (key.kind === "escape" || key.kind === "ctrl-c") reason = undefined;
          else if (key.kind === "backspace") reason = [...reason].slice(0, -1).join("");
          else if ((key.kind === "text" || key.kind === "paste") && key.text) {
            reason += key.text.replace(/[\r\n]+/g, " ");
          }
          this.terminal.editLine?.(reason, hint);
          return;
        }
        let answer: ApprovalAnswer | "reason" | undefined;
        if (key.kind === "enter") answer = choices[0][1];
        else if (key.kind === "escape" || key.kind === "ctrl-c") answer = "interrupt";
        else if (key.kind === "text" && key.text?.length === 1) {
          answer = choices.find(([letter]) => letter === key.text!.toLowerCase())?.[1];
        }
        if (!answer) return;
        if (answer === "reason") {
          reason = "";
          this.terminal.editLine?.(reason, hint);
          return;
        }
        done(
          answer,
          answer === "interrupt" ? "stopped" : choices.find(([, value]) => value === answer)![2],
        );
      });
    });
  }
}
