/**
 * `skiff tool`: run tools without a model, for scripts. One call from the
 * arguments, or JSON Lines `{"tool": …, "input": {…}}` from stdin, run in
 * order in one session under the same rules as `run`; one JSON result line
 * per call. Exit 0 when every call succeeded, 1 otherwise.
 */
import { type CommonOptions, prepare } from "../host/setup.ts";
import { startEngine } from "../host/start.ts";
import { prewarmTool } from "../boot/prewarm.ts";
import type { ToolCallResult } from "../engine/types.ts";
import { writeAll } from "../ui/jsonl.ts";
import { approvalPrompter } from "./approvals.ts";
import { ExitCode, UsageError } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";
import { printErrorLine } from "../ui/safe_print.ts";

type Call = { tool: string; input: unknown } | { invalid: string };

function parseInputArg(raw: string | undefined): unknown {
  if (raw === undefined) return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`the tool input is not valid JSON (${(error as Error).message}).`);
  }
}

export function parseCallLine(line: string): Call {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { invalid: `not valid JSON: ${(error as Error).message}` };
  }
  if (
    !value || typeof value !== "object" || typeof (value as { tool?: unknown }).tool !== "string"
  ) {
    return { invalid: 'expected an object like {"tool": "read", "input": {"file_path": "a.ts"}}' };
  }
  const record = value as { tool: string; input?: unknown };
  return { tool: record.tool, input: record.input ?? {} };
}

/**
 * How many calls from stdin may be sent before the first of them is
 * answered: the engine's thread runs the next while this one prints the
 * last (docs/performance.md, "Scripted tool calls").
 */
const AHEAD = 16;

async function* stdinCalls(): AsyncGenerator<Call> {
  if (Deno.stdin.isTerminal()) {
    throw new UsageError(
      'no tool given and stdin is a terminal. Pass one call (skiff tool read \'{"file_path":"a.ts"}\') or pipe JSON Lines.',
    );
  }
  const decoder = new TextDecoderStream();
  let buffer = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(decoder)) {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield parseCallLine(line);
    }
  }
  if (buffer.trim()) yield parseCallLine(buffer.trim());
}

export async function toolCommand(
  name: string | undefined,
  input: string | undefined,
  options: CommonOptions,
): Promise<number> {
  try {
    if (name !== undefined) prewarmTool(name);
    const { spec } = await prepare(options, false, approvalPrompter(true));
    const calls: AsyncIterable<Call> | Call[] = name
      ? [{ tool: name, input: parseInputArg(input) }]
      : stdinCalls();
    const engine = await startEngine({ ...spec, agent: "tool" }, {
      event: (event) => {
        if (event.type === "warning") printErrorLine(`warning: ${event.message}`);
      },
      ask: approvalPrompter(spec.interactive),
    }, { events: ["warning"] });
    let allOk = true;
    // The first calls go out while the session opens: the engine runs them once
    // it is open (engine/handle.ts), and a failed opening is reported before any answer.
    const opening = engine.open({});
    opening.catch(() => {}); // Told through `printed` below.
    try {
      // Calls are sent ahead (up to AHEAD of them) and run one after another in
      // the order given; each answer is printed in that order as soon as it
      // comes, whether or not the next line has arrived.
      let printed: Promise<void> = opening.then(() => {});
      const unprinted: Promise<void>[] = [];
      for await (const call of calls) {
        const answer: Promise<ToolCallResult> = "invalid" in call
          ? Promise.resolve({
            tool: "",
            ok: false,
            output: "",
            error: { code: "bad_input", message: call.invalid },
            metadata: {},
          })
          : engine.runTool(call.tool, call.input, { inOrder: true });
        answer.catch(() => {}); // Told through `printed` below.
        // A call that fails (the engine's failure, not the tool's) ends the run
        // when its turn to print comes; the ones after it are not printed.
        printed = printed.then(async () => {
          const result = await answer;
          allOk &&= result.ok;
          writeAll(Deno.stdout, JSON.stringify(result) + "\n");
        });
        printed.catch(() => {});
        unprinted.push(printed);
        while (unprinted.length >= AHEAD) await unprinted.shift();
      }
      await printed;
    } finally {
      // Never closed while still opening (stdin that is a terminal fails at once).
      await opening.catch(() => {});
      await engine.close();
    }
    return allOk ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    return reportFatal(error);
  }
}
