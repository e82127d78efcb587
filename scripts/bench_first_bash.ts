/**
 * A model's first bash call of a process, as a real model sends it: the
 * mock streams the call's arguments piece by piece (paced about as a hosted
 * model writes them), and `skiff run --json` runs it in a small git
 * workspace, sandboxed. Reported: the wait from `tool.started` (the call
 * complete) to `tool.completed`, which is what the preparation while the
 * arguments stream (the shell parser, the session sandbox) takes off, and
 * the whole process. `SKIFF_BENCH_BEFORE=<tree>` runs that checkout's
 * `main.ts` in the same rounds (docs/performance.md, "Scripted tool calls").
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { runtimeFlags } from "./compile.ts";
import { gitWorkspace, median, mockRunEnv } from "./bench.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");

/** The call the mock streams: its arguments go out 7 characters per event. */
const CALL = {
  name: "bash",
  arguments: {
    command: "true",
    description: "Check that the workspace builds before changing anything in it",
  },
};

/** One run: the call's wait (tool.started → tool.completed) and the whole process, in ms. */
async function firstBash(
  main: string,
  flags: string[],
  workspace: string,
  env: Record<string, string>,
): Promise<{ call: number; whole: number }> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...flags,
      main,
      "run",
      "--json",
      "--allow",
      "bash(true *)",
      "--dir",
      workspace,
      "go",
    ],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const whole = performance.now() - started;
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`skiff run failed: ${new TextDecoder().decode(output.stderr)}\n${text}`);
  }
  const events = text.trim().split("\n").map((line) => JSON.parse(line));
  const at = (type: string) => {
    const event = events.find((candidate) => candidate.type === type);
    if (!event) throw new Error(`no ${type} event in:\n${text}`);
    return Date.parse(event.timestamp);
  };
  const completed = events.find((event) => event.type === "tool.completed");
  if (!completed?.ok) throw new Error(`the bash call did not succeed:\n${text}`);
  return { call: at("tool.completed") - at("tool.started"), whole };
}

export async function benchFirstBash(rounds = 11): Promise<string[]> {
  const flags = await runtimeFlags();
  const { dir, workspace } = await gitWorkspace("skiff-bench-first-bash-");
  // A request that carries the call's result gets the answer; any other, the call.
  const mock = startMockServer([], {
    respond: (body) => {
      const messages = body.messages as { role: string }[];
      return messages.at(-1)?.role === "tool"
        ? { text: "done" }
        : { toolCalls: [CALL], wire: { eventDelayMs: 25 } };
    },
  });
  const env = mockRunEnv(dir, mock.url);
  const before = Deno.env.get("SKIFF_BENCH_BEFORE");
  const trees: [string, string][] = [["this tree", MAIN]];
  if (before) trees.push(["before tree", path.join(before, "main.ts")]);
  try {
    const results = trees.map(() => ({ call: [] as number[], whole: [] as number[] }));
    for (const [, main] of trees) await firstBash(main, flags, workspace, env); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const [index, [, main]] of trees.entries()) {
        const { call, whole } = await firstBash(main, flags, workspace, env);
        results[index].call.push(call);
        results[index].whole.push(whole);
      }
    }
    const lines = trees.map(([name], index) =>
      `first bash call of a streamed run (${name}): tool.started → tool.completed ${
        median(results[index].call).toFixed(0)
      } ms, whole process ${median(results[index].whole).toFixed(0)} ms`
    );
    lines.push(`${rounds} interleaved rounds, medians; load average ${Deno.loadavg().join(", ")}`);
    return lines;
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  for (const line of await benchFirstBash()) console.log(line);
}
