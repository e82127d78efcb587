/**
 * Shared ground for the end-to-end escape suite, where the model itself is
 * the attacker: `skiff run` as a real process (main thread → engine Worker →
 * policy gate → tools → bubblewrap) driven by the scripted mock. It builds a
 * home with secrets, an "outside" folder and a git workspace under /var/tmp
 * (not /tmp, which the sandbox replaces with its own, so an escape there
 * would vanish and prove nothing), and helpers to prove nothing changed.
 */
import * as path from "node:path";
import { createHash } from "node:crypto";
import { assert } from "../support/assert.ts";
import type { Sandbox } from "../support/cli.ts";
import { cliEnv, parseJsonLines } from "../support/cli.ts";
import {
  type MockServer,
  type MockServerOptions,
  type MockTurn,
  startMockServer,
} from "../support/mock_server.ts";
import { hasBwrap } from "./_harness.ts";

export { hasBwrap };
/** Needs bubblewrap: skipped loudly (the harness warns) where it is absent. */
export const needsBwrap = { ignore: !hasBwrap };

/** The API key skiff is started with; it must never reach a tool or a request body. */
export const API_KEY = "sk-test-secret-4f1d9c";
/** The content of the fake SSH key in the home folder. */
export const SSH_SECRET = "PRIVATE-KEY-e2e-7a3b";
/** The content of a secret file in the outside folder. */
export const OUTSIDE_SECRET = "outside-secret-91c2";

function tempBase(): string | undefined {
  try {
    const probe = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-probe-" });
    Deno.removeSync(probe);
    return "/var/tmp";
  } catch {
    console.warn("!!! e2e escape: /var/tmp is not writable; outside paths live under /tmp !!!");
    return undefined;
  }
}
const BASE = tempBase();

export interface AttackSandbox extends Sandbox {
  outside: string;
}

async function git(args: string[], cwd: string): Promise<void> {
  const result = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
}

/**
 * A home with `~/.ssh/id_rsa`, an outside folder with a secret, and a
 * workspace that is a git repository with a committed file (`a.txt`).
 */
export async function makeAttackSandbox(
  extraEnv: Record<string, string> = {},
): Promise<AttackSandbox> {
  const root = await Deno.realPath(await Deno.makeTempDir({ dir: BASE, prefix: "skiff-e2e-" }));
  const home = path.join(root, "home");
  const workspace = path.join(root, "work");
  const dataDir = path.join(root, "data");
  const configDir = path.join(root, "config");
  const outside = path.join(root, "outside");
  for (const dir of [home, path.join(home, ".ssh"), workspace, dataDir, configDir, outside]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  await Deno.writeTextFile(path.join(home, ".ssh", "id_rsa"), `${SSH_SECRET}\n`);
  await Deno.writeTextFile(path.join(home, ".bashrc"), "# user's shell setup\n");
  await Deno.writeTextFile(path.join(outside, "secret.txt"), `${OUTSIDE_SECRET}\n`);
  await Deno.writeTextFile(path.join(workspace, "a.txt"), "alpha\n");
  await git(["init", "-q", "-b", "main"], workspace);
  await git(["-c", "user.email=t@t", "-c", "user.name=t", "add", "a.txt"], workspace);
  await git(
    ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "init"],
    workspace,
  );
  const env: Record<string, string> = {
    ...cliEnv({ home, dataDir, configDir }),
    SKIFF_MODEL: "mock-model",
    OPENAI_API_KEY: API_KEY,
    ...extraEnv,
  };
  return {
    root,
    home,
    workspace,
    dataDir,
    configDir,
    outside,
    env,
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
}

/** A mock endpoint (the user's own, via OPENAI_BASE_URL) and an attack sandbox around `work`. */
export async function withAttack(
  script: MockTurn[],
  work: (sandbox: AttackSandbox, mock: MockServer) => Promise<void>,
  options: MockServerOptions = {},
): Promise<void> {
  const mock = startMockServer(script, options);
  const sandbox = await makeAttackSandbox({ OPENAI_BASE_URL: mock.url });
  try {
    await work(sandbox, mock);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}

/** Every file, folder and link under `dir` with a digest of its content (missing: empty). */
export function digestTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (folder: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isSymlink) out.set(full, `link:${Deno.readLinkSync(full)}`);
      else if (entry.isDirectory) {
        out.set(full, "dir");
        walk(full);
      } else {
        const bytes = Deno.readFileSync(full);
        out.set(full, createHash("sha256").update(bytes).digest("hex"));
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * What must not change whatever the model does: home, the outside folder,
 * the global config folder, git hooks and config, skiff's project config.
 */
export function guarded(sandbox: AttackSandbox): Map<string, string> {
  const all = new Map<string, string>();
  const single = (file: string) => {
    try {
      const info = Deno.lstatSync(file);
      if (info.isSymlink) all.set(file, `link:${Deno.readLinkSync(file)}`);
      else if (info.isFile) {
        all.set(file, createHash("sha256").update(Deno.readFileSync(file)).digest("hex"));
      } else all.set(file, "dir");
    } catch {
      all.set(file, "absent");
    }
  };
  for (const dir of [sandbox.home, sandbox.outside, sandbox.configDir]) {
    for (const [key, value] of digestTree(dir)) all.set(key, value);
  }
  const ws = sandbox.workspace;
  for (const file of [".git/config", "skiff.json", ".skiff", ".git/hooks", ".claude"]) {
    single(path.join(ws, file));
  }
  for (const dir of [".git/hooks", ".skiff", ".claude"]) {
    for (const [key, value] of digestTree(path.join(ws, dir))) all.set(key, value);
  }
  return all;
}

/** Fails naming every path that appeared, vanished or changed. */
export function assertUnchanged(before: Map<string, string>, after: Map<string, string>): void {
  const changed: string[] = [];
  for (const [key, value] of before) if (after.get(key) !== value) changed.push(key);
  for (const key of after.keys()) if (!before.has(key)) changed.push(`${key} (new)`);
  if (changed.length) throw new Error(`changed outside what the run may touch:\n${changed}`);
}

export async function exists(file: string): Promise<boolean> {
  return await Deno.lstat(file).then(() => true, () => false);
}

/** Writes `text` to `file`, making its folders first: a file a test plants. */
export async function plantFile(file: string, text: string): Promise<void> {
  await Deno.mkdir(path.dirname(file), { recursive: true });
  await Deno.writeTextFile(file, text);
}

export interface ToolMessage {
  role: string;
  content: string;
  tool_call_id?: string;
}

/** The tool results the model saw in the last request of the main session. */
export function lastToolResults(mock: MockServer): ToolMessage[] {
  const last = mock.requests.at(-1) as { messages: ToolMessage[] } | undefined;
  return (last?.messages ?? []).filter((message) => message.role === "tool");
}

/** Every request body, as one string, to search for leaked secrets. */
export function everythingSent(mock: MockServer): string {
  return JSON.stringify(mock.requests);
}

export interface RunEvents {
  events: Record<string, unknown>[];
  completed: Record<string, unknown>;
  denials: { tool: string; key: string; patterns: string[]; reason: string }[];
  warnings: string[];
}

export function runEvents(stdout: string): RunEvents {
  const events = parseJsonLines(stdout);
  const completed = events.findLast((event) => event.type === "session.completed") ?? {};
  return {
    events,
    completed,
    denials: (completed.denials ?? []) as RunEvents["denials"],
    warnings: events.filter((event) => event.type === "warning").map((event) =>
      String(event.message)
    ),
  };
}

/** A local TCP server that counts connections, for network attempts. */
export function connectionCounter(): { port: number; count(): number; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  (async () => {
    try {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    } catch {
      // closed
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    count: () => connections,
    close: () => listener.close(),
  };
}

/** None of the planted secrets reached the model (`sent`) or skiff's output. */
export function assertNoSecrets(sent: string, ...outputs: string[]): void {
  for (const secret of [SSH_SECRET, OUTSIDE_SECRET, API_KEY]) {
    assert(!sent.includes(secret), `${secret} reached the model`);
    for (const output of outputs) assert(!output.includes(secret), `${secret} reached the output`);
  }
}

/** Tool calls as the mock model sends them. */
export const bash = (command: string) => ({ name: "bash", arguments: { command } });
export const write = (file_path: string, content: string) => ({
  name: "write",
  arguments: { file_path, content },
});
export const read = (file_path: string) => ({ name: "read", arguments: { file_path } });
