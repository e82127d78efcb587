/**
 * What the batch tests share: a scripted model that, for the task whose
 * first user message says "write <file>", reads that file, writes it, then
 * answers "done"; a task-list writer; and ways to count the mock's requests
 * per task and wait for them.
 */
import * as path from "node:path";
import type { MockServer, MockTurn } from "./mock_server.ts";

type Body = Record<string, unknown>;

/** The file a request's task writes (its first user message names it), or "?". */
export function targetOf(body: Body): string {
  const messages = body.messages as { role: string; content: unknown }[];
  const first = messages.find((message) => message.role === "user");
  return /write (\S+)/.exec(String(first?.content))?.[1] ?? "?";
}

/** The task of a request: its target file without `.txt`. */
export function taskOf(body: Body): string {
  return targetOf(body).replace(/\.txt$/, "");
}

/**
 * Read, write, answer "done", by how many tool results the request carries.
 * `content` is what the task writes into its file. @default `made by <file>\n`
 */
export function writerTurn(
  body: Body,
  content: (target: string) => string = (target) => `made by ${target}\n`,
): MockTurn {
  const target = targetOf(body);
  const results = (body.messages as { role: string }[])
    .filter((message) => message.role === "tool").length;
  if (results === 0) return { toolCalls: [{ name: "read", arguments: { file_path: target } }] };
  if (results === 1) {
    return {
      toolCalls: [{ name: "write", arguments: { file_path: target, content: content(target) } }],
    };
  }
  return { text: "done" };
}

/** `writerTurn` as a mock's `respond`. */
export function writerResponder(body: Body): MockTurn {
  return writerTurn(body);
}

/**
 * Empty `<id>.txt` files in `workspace` and a JSONL file of tasks, each
 * "write <id>.txt" and owning its file alone. Returns the JSONL file's path.
 */
export async function writeTaskFile(root: string, workspace: string, ids: string[]) {
  const file = path.join(root, "tasks.jsonl");
  for (const id of ids) await Deno.writeTextFile(path.join(workspace, `${id}.txt`), "");
  await Deno.writeTextFile(
    file,
    ids.map((id) => JSON.stringify({ id, prompt: `write ${id}.txt`, owns: [`${id}.txt`] }))
      .join("\n") + "\n",
  );
  return file;
}

/** Requests per task at the mock. */
export function perTask(requests: Body[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const body of requests) counts[taskOf(body)] = (counts[taskOf(body)] ?? 0) + 1;
  return counts;
}

/** Wait until `ready()` holds (polling, with a deadline that names what was awaited). */
export async function until(
  ready: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Wait until the mock has received `count` requests. */
export function requestsReach(mock: MockServer, count: number, timeoutMs = 120_000) {
  return until(
    () => mock.requests.length >= count,
    `the mock to get ${count} request(s)`,
    timeoutMs,
  );
}
