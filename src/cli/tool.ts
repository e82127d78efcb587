/**
 * `skiff tool`: run tools without a model, for scripts. One call from the
 * arguments, or JSON Lines `{"tool": …, "input": {…}}` from stdin, run in
 * order in one session under the same rules as `run`; one JSON result line
 * per call. Exit 0 when every call succeeded, 1 otherwise.
 */
import { type CommonOptions, prepare } from "../app/setup.ts";
import { startEngine } from "../app/start.ts";
import { prewarmTool } from "../app/prewarm.ts";
import type { ToolCallResult } from "../app/engine_types.ts";
import { writeAll } from "../ui/jsonl.ts";
import { approvalPrompter } from "./approvals.ts";
import { ExitCode, UsageError } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";

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
        if (event.type === "warning") console.error(`warning: ${event.message}`);
      },
      ask: approvalPrompter(spec.interactive),
    }, { events: ["warning"] });
    let allOk = true;
    try {
      await engine.open({});
      for await (const call of calls) {
        const result: ToolCallResult = "invalid" in call
          ? {
            tool: "",
            ok: false,
            output: "",
            error: { code: "bad_input", message: call.invalid },
            metadata: {},
          }
          : await engine.runTool(call.tool, call.input);
        allOk &&= result.ok;
        writeAll(Deno.stdout, JSON.stringify(result) + "\n");
      }
    } finally {
      await engine.close();
    }
    return allOk ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    return reportFatal(error);
  }
}
