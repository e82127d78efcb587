/**
 * The pieces of a long scripted session that reads a file a turn, shared by
 * the loop's compaction tests and the resume tests: each file's contents (a
 * big code-like output, different for each file) and a `read` tool that
 * returns them without touching a disk.
 */
import { z } from "zod";
import type { Tool } from "../../src/tools/tool.ts";

/** About `chars` characters of code-like lines, different for each `n`. */
export function bigOutput(n: number, chars = 20_000): string {
  const lines: string[] = [];
  for (let line = 0, length = 0; length < chars; line++) {
    const text = `${n}:${line}: const value_${line} = compute(${line});`;
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join("\n").slice(0, chars);
}

/** A `read` tool whose call `{"path": "…<n>…"}` returns `bigOutput(n, chars)`. */
export function fakeReadTool(chars = 20_000): Tool {
  return {
    name: "read",
    description: "read a file",
    parameters: z.object({ path: z.string() }),
    declare: () => ({ key: "read", patterns: ["*"] }),
    execute: (input: { path: string }) =>
      Promise.resolve({ output: bigOutput(Number(input.path.match(/\d+/)![0]), chars) }),
  } as unknown as Tool;
}
