/**
 * A long scripted session for the mock endpoint (tests and `deno task
 * bench`): each turn reads one of five ~20 KB logs, every tenth writes a
 * file, the last answers "Done."; each answer carries ~2,000 characters of
 * reasoning, which pruning cannot shorten, so the session needs summaries. Summary requests (found by their prompt)
 * get a handoff that leaves out the task and the changed files, so skiff's
 * own check must add them back. Every request is measured as it arrives: its
 * size against the window, and whether the handoff it carries holds the
 * task and every file changed before it was asked for.
 */
import * as path from "node:path";
import type { MockTurn } from "./mock_server.ts";
import { HANDOFF_MARK, SUMMARY_PROMPT } from "../../src/engine/context/summary.ts";
import { INTERRUPTED_RESULT } from "../../src/engine/loop/history.ts";

export const LONG_TASK = "Go through the five logs under data/ one at a time, again and again,\n" +
  "and every tenth step write what you found to out/step_<n>.txt. Keep every log's name.";

/** Model the session runs as, with the window set through `models` in the config. */
export const LONG_WINDOW = 32_768;
export const LONG_CONFIG = {
  models: { "mock-model": { context: LONG_WINDOW, output: 4_096 } },
};

const HANDOFF =
  "## Task\nReading the logs.\n\n## Decisions\n- One log a step.\n\n## Files\n- data/ logs read\n\n" +
  "## Commands\n- none\n\n## Verified\n- nothing yet\n\n## Open problems\n- none\n\n" +
  "## Next steps\n- read the next log";

type Message = { role: string; content: string | null; tool_call_id?: string };

/** What the model "thinks" at each step: prose pruning leaves alone. */
const thought = (step: number, doing: string) =>
  `Step ${step}: ${doing} ` +
  `The previous log showed steady latency and no failed status lines, so the next one is read. `
    .repeat(20);

export interface LongSessionOptions {
  turns: number;
  /** The n-th summary request (1-based) never gets an answer (to kill skiff there). */
  hangOnSummary?: number;
}

export class LongSession {
  readonly turns: number;
  /** Tokens of each request as the mock counts them (4 characters a token, tools included). */
  readonly sizes: number[] = [];
  /** performance.now() of each turn request's arrival. */
  readonly arrivals: number[] = [];
  /** Files whose write came back done (its result reached a later request). */
  readonly written: string[] = [];
  /** Writes asked for whose result has not been seen: a run killed before it ran changed nothing. */
  #pending = new Map<string, string>();
  readonly problems: string[] = [];
  summaries = 0;
  /** Handoffs seen in requests (each checked). */
  handoffsChecked = 0;
  #step = 0;
  #writtenAtSummary: string[] = [];
  #hangOn?: number;
  #hanging?: () => void;
  /** Resolves when the summary request set to hang has arrived. */
  readonly hanging: Promise<void>;

  constructor(options: LongSessionOptions) {
    this.turns = options.turns;
    this.#hangOn = options.hangOnSummary;
    this.hanging = new Promise((resolve) => (this.#hanging = resolve));
  }

  /** The five logs, about 20 KB each. */
  static async prepare(workspace: string): Promise<void> {
    await Deno.mkdir(path.join(workspace, "data"), { recursive: true });
    await Deno.mkdir(path.join(workspace, "out"), { recursive: true });
    for (let log = 0; log < 5; log++) {
      const lines = Array.from(
        { length: 200 },
        (_, line) => `log ${log} line ${line}: ${"status=ok latency=12ms ".repeat(4)}`.padEnd(99),
      );
      await Deno.writeTextFile(path.join(workspace, "data", `log_${log}.txt`), lines.join("\n"));
    }
  }

  /** For MockServerOptions.respond. */
  respond = (body: Record<string, unknown>): MockTurn => {
    const messages = body.messages as Message[];
    this.#confirmWrites(messages);
    const size = Math.ceil(JSON.stringify({ messages, tools: body.tools ?? [] }).length / 4);
    this.sizes.push(size);
    if (size > LONG_WINDOW) {
      this.problems.push(`a request of ${size} tokens (window ${LONG_WINDOW})`);
    }
    if (messages[0]?.content === SUMMARY_PROMPT) {
      this.summaries++;
      this.#writtenAtSummary = [...this.written];
      if (this.summaries === this.#hangOn) {
        this.#hanging?.();
        return { hang: true };
      }
      return { text: HANDOFF };
    }
    this.#checkHandoff(messages);
    this.arrivals.push(performance.now());
    const step = ++this.#step;
    if (step >= this.turns) return { text: "Done." };
    if (step % 10 === 0) {
      const file = `out/step_${step}.txt`;
      this.#pending.set(`call_${step}`, file);
      return {
        text: thought(step, "writing what I found."),
        toolCalls: [{
          name: "write",
          id: `call_${step}`,
          arguments: { file_path: file, content: `step ${step}: all logs ok\n` },
        }],
      };
    }
    return {
      text: thought(step, "reading the next log."),
      toolCalls: [{
        name: "read",
        id: `call_${step}`,
        arguments: { file_path: `data/log_${step % 5}.txt` },
      }],
    };
  };

  /**
   * A write counts as changed once a request carries its result, unless
   * that result says the call was cut off by the process stopping (skiff
   * then tells the model the effect is unknown, and lists no change).
   */
  #confirmWrites(messages: Message[]): void {
    for (const message of messages) {
      const file = message.tool_call_id && this.#pending.get(message.tool_call_id);
      if (!file) continue;
      this.#pending.delete(message.tool_call_id!);
      if (!message.content?.includes(INTERRUPTED_RESULT)) this.written.push(file);
    }
  }

  /** A handoff in the request must hold the task verbatim and every file changed before it. */
  #checkHandoff(messages: Message[]): void {
    const handoff = messages.find((message) =>
      message.role === "user" && message.content?.startsWith(HANDOFF_MARK)
    );
    if (!handoff) return;
    this.handoffsChecked++;
    const text = handoff.content!;
    if (!text.includes(LONG_TASK)) this.problems.push("a handoff without the task verbatim");
    for (const file of this.#writtenAtSummary) {
      if (!text.includes(file)) this.problems.push(`a handoff without the changed file ${file}`);
    }
  }
}
