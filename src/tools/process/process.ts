/**
 * The process tool: reads the output of a command started with
 * `bash` + `background: true`, or stops it (its whole process group).
 */
import * as z from "zod";
import { defineTool } from "../tool.ts";
import { plainTerminalText } from "./_terminal_text.ts";

export const MAX_WAIT_MS = 120_000;

const schema = z.lazy(() =>
  z.object({
    id: z.string().min(1).describe(
      'The id bash returned when it started the command (e.g. "bg1").',
    ),
    action: z.enum(["output", "stop"]).describe(
      '"output" returns what the command printed since the last read; "stop" kills it and everything it started.',
    ),
    wait_ms: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe(
      `With "output": wait up to this many milliseconds for the command to finish before answering (default 0, at most ${MAX_WAIT_MS}).`,
    ),
  })
);

export const processTool = defineTool({
  name: "process",
  description:
    "Read the new output of a background command started with bash (background: true), or stop it. Output is returned once: each read shows what was printed since the previous one. Background commands are stopped when the session ends.",
  schema,
  declare(input) {
    return { key: "process", patterns: [input.id], preview: `${input.action} ${input.id}` };
  },
  async execute(input, ctx) {
    if (input.action === "stop") {
      // A command that already finished was not stopped by this call: say so, with how it ended.
      const before = await ctx.background.output(input.id);
      const { output, exitCode } = await ctx.background.stop(input.id);
      const how = before.running
        ? `stopped; exit code ${exitCode}`
        : `had already exited with code ${exitCode}`;
      return {
        output: `${body(before.output + output)}[${input.id} ${how}]`,
        title: `stop ${input.id}`,
        metadata: { id: input.id, exitCode, running: false },
      };
    }
    const { output, exitCode, running } = await ctx.background.output(input.id, input.wait_ms);
    const status = running
      ? `[${input.id} still running]`
      : `[${input.id} exited with code ${exitCode}]`;
    return {
      output: `${body(output)}${status}`,
      title: `output ${input.id}`,
      metadata: { id: input.id, exitCode, running },
    };
  },
});

function body(raw: string): string {
  const output = plainTerminalText(raw);
  if (!output) return "(no new output)\n";
  return output.endsWith("\n") ? output : `${output}\n`;
}
