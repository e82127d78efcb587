/**
 * What the hook tests share: a `skiff run --json` against a scripted model,
 * a hook script in the workspace, and reading the events back.
 */
import * as path from "node:path";
import { parseJsonLines, runSkiff, type Sandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";

/** One JSONL event of `skiff run --json`. */
export type Event = Record<string, unknown>;

/** One `skiff run --json` against its own scripted model; the requests it made come back too. */
export async function runWith(sandbox: Sandbox, script: MockTurn[], args: string[] = []) {
  const mock = startMockServer(script);
  try {
    const result = await runSkiff(["run", "--json", ...args, "go"], sandbox, {
      env: { OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" },
    });
    return { ...result, events: parseJsonLines(result.stdout) as Event[], requests: mock.requests };
  } finally {
    await mock.close();
  }
}

/** Writes `value` as JSON, making its folder. */
export async function writeJson(file: string, value: unknown) {
  await Deno.mkdir(path.dirname(file), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify(value, null, 2));
}

/** A hook script in the workspace's hooks folder, executable. */
export async function hookScript(sandbox: Sandbox, name: string, body: string): Promise<string> {
  const file = path.join(sandbox.workspace, "hooks", name);
  await Deno.mkdir(path.dirname(file), { recursive: true });
  await Deno.writeTextFile(file, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(file, 0o755);
  return file;
}

/** The events of one type. */
export function ofType(events: Event[], type: string): Event[] {
  return events.filter((event) => event.type === type);
}

/** The warning events' messages, one per line. */
export function warnings(events: Event[]): string {
  return ofType(events, "warning").map((event) => event.message).join("\n");
}

/** Fails loudly when bubblewrap is missing. */
export function requireBwrap() {
  const found = new Deno.Command("sh", { args: ["-c", "command -v bwrap"] }).outputSync();
  if (!found.success) {
    throw new Error("bubblewrap (bwrap) is needed for the sandbox tests; install it");
  }
}
