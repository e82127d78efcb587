/**
 * What the language-server tests share: the real servers they need (a
 * missing one fails the test, naming the install line of .ci/run), a
 * workspace whose calls go through `skiff tool`, and scripted servers of the
 * tests' own.
 */
import { assert } from "../support/assert.ts";
import type { Sandbox } from "../support/cli.ts";
import * as path from "../../src/lib/path.ts";
import { SessionDiagnostics, type SessionDiagnosticsOptions } from "../../src/lsp/diagnostics.ts";
import type { DiagnosticsReport } from "../../src/lsp/types.ts";

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

/**
 * The head of a scripted server (Node, LSP framing over stdio): `send(message)`
 * writes one message; the script defines `handle(message)`, called per message read.
 */
export const SCRIPTED_SERVER_HEAD = `
const send = (message) => {
  const body = JSON.stringify({ jsonrpc: "2.0", ...message });
  process.stdout.write("Content-Length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body);
};
let buffered = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  for (;;) {
    const head = buffered.indexOf("\\r\\n\\r\\n");
    if (head < 0) return;
    const length = Number(/Content-Length: (\\d+)/i.exec(buffered.subarray(0, head).toString())[1]);
    if (buffered.length < head + 4 + length) return;
    const message = JSON.parse(buffered.subarray(head + 4, head + 4 + length).toString());
    buffered = buffered.subarray(head + 4 + length);
    handle(message);
  }
});
`;

/**
 * A scripted server's files and their errors: `texts` (uri → text, kept by
 * the script) and `errorsOf(text)`, one error on each line that says "bad".
 */
export const BAD_WORDS = `
const texts = new Map();
const errorsOf = (text) => text.split("\\n").flatMap((line, index) =>
  line.includes("bad")
    ? [{ range: { start: { line: index, character: 0 }, end: { line: index, character: 3 } },
        severity: 1, code: "bad-word", source: "scripted", message: "a bad word" }]
    : []);`;

/**
 * A session's language servers with one server, `name`: the Node program
 * `script` (after SCRIPTED_SERVER_HEAD) with `args`, for files ending in
 * `extension`, started uncontained as it is the test's own.
 */
export async function scriptedServers(
  workspace: string,
  name: string,
  script: string,
  { args = [], extension, waits }: {
    args?: string[];
    extension: string;
    waits: Pick<SessionDiagnosticsOptions, "firstWaitMs" | "waitMs" | "hungAfterMs">;
  },
): Promise<SessionDiagnostics> {
  const server = path.join(workspace, `${name}.cjs`);
  await Deno.writeTextFile(server, SCRIPTED_SERVER_HEAD + script);
  return new SessionDiagnostics({
    workspace,
    prepare: (command, cwd) =>
      Promise.resolve({
        argv: ["sh", "-c", `cd '${cwd}' && ${command}`],
        env: Deno.env.toObject(),
      }),
    verdict: () => "allow",
    servers: { [name]: { command: ["node", server, ...args], extensions: [extension] } },
    ...waits,
  });
}

/**
 * The reports of `changes` ([text before, text after], in turn) to one file,
 * notes.txt, of a new workspace, checked by the scripted server `script`
 * (named `name`, taking `args`, for `.txt` files) with `waits`.
 */
export async function reportsOfChanges(
  name: string,
  script: string,
  args: string[],
  waits: Pick<SessionDiagnosticsOptions, "firstWaitMs" | "waitMs">,
  changes: [string, string][],
): Promise<DiagnosticsReport[]> {
  const workspace = await Deno.makeTempDir({ prefix: `skiff-lsp-${name}-` });
  const diagnostics = await scriptedServers(workspace, name, script, {
    args,
    extension: ".txt",
    waits,
  });
  const real = path.join(workspace, "notes.txt");
  try {
    const reports: DiagnosticsReport[] = [];
    for (const [before, after] of changes) {
      reports.push((await diagnostics.diagnose([{ real, display: "notes.txt", before, after }]))!);
    }
    return reports;
  } finally {
    await diagnostics.close();
    await Deno.remove(workspace, { recursive: true });
  }
}
