/**
 * What the language-server tests share: the real servers they need (a
 * missing one fails the test, naming the install line of .ci/run) and a
 * workspace whose calls go through `skiff tool`.
 */
import { assert } from "../support/assert.ts";
import type { Sandbox } from "../support/cli.ts";
import * as path from "../../src/lib/path.ts";

/** Fails loudly unless `program` is on PATH; `install` says how .ci/run gets it. */
export async function requireServer(
  program: string,
  install = "npm install -g typescript-language-server typescript pyright, pinned there",
): Promise<void> {
  const found = await new Deno.Command("sh", {
    args: ["-c", `command -v ${program}`],
    stdout: "null",
    stderr: "null",
  }).output();
  assert(
    found.success,
    `${program} is not on PATH: install the language servers as .ci/run does ` +
      `(${install})`,
  );
}

/** Writes `files` (path → text) into the sandbox's workspace. */
export async function writeFiles(sandbox: Sandbox, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(sandbox.workspace, name);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
}

/** The diagnostics a `skiff tool` answer carries in its metadata. */
export function diagnosticsOf(answer: Record<string, unknown>): {
  errors: { path: string; line: number; message: string; code?: string }[];
  busy: string[];
  notes: string[];
} {
  const metadata = answer.metadata as Record<string, unknown>;
  const diagnostics = metadata.diagnostics;
  assert(diagnostics, `no diagnostics in ${JSON.stringify(answer)}`);
  return diagnostics as ReturnType<typeof diagnosticsOf>;
}
