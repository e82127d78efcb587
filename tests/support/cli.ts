/**
 * Runs the real skiff CLI as a child process, the way a user or a CI job
 * does (`deno run` of main.ts with the task's flags), in an isolated home:
 * its own config folder, data folder and workspace.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type MockServer,
  type MockServerOptions,
  type MockTurn,
  startMockServer,
} from "./mock_server.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MAIN = path.join(ROOT, "main.ts");

/** Deno's cache, so the child does not fetch npm packages again under a fake HOME. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  path.join(Deno.env.get("XDG_CACHE_HOME") ?? path.join(Deno.env.get("HOME")!, ".cache"), "deno");

export interface Sandbox {
  root: string;
  home: string;
  workspace: string;
  dataDir: string;
  configDir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * The whole environment a skiff child process gets in tests: nothing from
 * this process but PATH, Deno's cache and package-download trust.
 */
export function cliEnv(
  dirs: { home: string; dataDir: string; configDir: string },
): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: dirs.home,
    DENO_DIR,
    // As every launcher of skiff sets it: no lookup of Deno's download host.
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    SKIFF_DATA_DIR: dirs.dataDir,
    SKIFF_CONFIG_DIR: dirs.configDir,
    ...(Deno.env.get("NODE_EXTRA_CA_CERTS")
      ? { NODE_EXTRA_CA_CERTS: Deno.env.get("NODE_EXTRA_CA_CERTS")! }
      : {}),
  };
}

/** A temp home with an empty workspace (a git repository) and no config. */
export async function makeSandbox(extraEnv: Record<string, string> = {}): Promise<Sandbox> {
  const root = await Deno.makeTempDir({ prefix: "skiff-e2e-" });
  const home = path.join(root, "home");
  const workspace = path.join(root, "work");
  const dataDir = path.join(root, "data");
  const configDir = path.join(root, "config");
  for (const dir of [home, workspace, dataDir, configDir]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  const env = { ...cliEnv({ home, dataDir, configDir }), ...extraEnv };
  return {
    root,
    home,
    workspace: await Deno.realPath(workspace),
    dataDir,
    configDir,
    env,
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * skiff as a child in the sandbox's workspace with only its environment and
 * `env`: SKIFF_BIN when set, else `deno run` of main.ts with the task's
 * flags; `entry`: `deno run` of that entry (another tree's main.ts) with
 * `flags` before it, whatever SKIFF_BIN says.
 */
function command(
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string>,
  stdin: boolean,
  entry?: { main: string; flags: string[] },
) {
  const binary = entry ? undefined : Deno.env.get("SKIFF_BIN");
  const run = ["run", "--allow-all", "--unstable-worker-options", "--no-prompt"];
  const argv = binary ? args : [...run, ...entry?.flags ?? [], entry?.main ?? MAIN, ...args];
  return new Deno.Command(binary ?? Deno.execPath(), {
    args: argv,
    ...inWorkspace(sandbox, env, stdin),
  });
}

/**
 * How a test's child runs: in the sandbox's workspace with only its
 * environment and `env`, stdin piped (or empty: "null"), output captured.
 */
function inWorkspace(
  sandbox: Sandbox,
  env: Record<string, string> = {},
  stdin = false,
): Deno.CommandOptions {
  return {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, ...env },
    clearEnv: true,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  };
}

/**
 * Any program (a shell line, `deno task`, a compiled binary) run to its end
 * the way skiff runs here: in the sandbox's workspace, with only its
 * environment, stdin empty.
 */
export function runInWorkspace(
  program: string,
  args: string[],
  sandbox: Sandbox,
  options: { signal?: AbortSignal } = {},
): Promise<CliResult> {
  return finished(
    new Deno.Command(program, { args, ...inWorkspace(sandbox), signal: options.signal }).spawn(),
    undefined,
  );
}

/** Writes `input` to the child's stdin (undefined: it has none) and waits for it to end. */
async function finished(child: Deno.ChildProcess, input: string | undefined): Promise<CliResult> {
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    if (input) await writer.write(new TextEncoder().encode(input));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Run skiff to the end. `input` is written to its stdin (otherwise stdin is empty). */
export function runSkiff(
  args: string[],
  sandbox: Sandbox,
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return finished(command(args, sandbox, options.env ?? {}, true).spawn(), options.input ?? "");
}

/** Start skiff without waiting, for tests that signal or kill it. */
export function spawnSkiff(
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return command(args, sandbox, env, false).spawn();
}

/** Start skiff with stdin, stdout and stderr piped, for a test that speaks a protocol with it. */
export function spawnSkiffPiped(
  args: string[],
  sandbox: Sandbox,
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return command(args, sandbox, env, true).spawn();
}

/**
 * `deno run` of a given skiff entry (`main`, another tree's main.ts) with
 * the task's flags and `flags` before it, in the sandbox's workspace with
 * only its environment and `env`; `input` is written to stdin (else stdin is
 * empty: "null").
 */
export function runMain(
  main: string,
  args: string[],
  sandbox: Sandbox,
  options: { flags?: string[]; env?: Record<string, string>; input?: string } = {},
): Promise<CliResult> {
  const entry = { main, flags: options.flags ?? [] };
  const child = command(args, sandbox, options.env ?? {}, options.input !== undefined, entry);
  return finished(child.spawn(), options.input);
}

/**
 * `skiff tool <args>` kept running with JSON Lines on stdin, for a test that
 * writes a call, waits for its answer, and acts between calls. `stop` kills
 * it (if it is still running) and lets its streams go.
 */
export function toolSession(sandbox: Sandbox, args: string[] = []) {
  const child = command(["tool", ...args], sandbox, {}, true).spawn();
  void child.stderr.cancel().catch(() => {});
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<Record<string, unknown>> => {
    const deadline = AbortSignal.timeout(30_000);
    while (!buffered.includes("\n")) {
      if (deadline.aborted) throw new Error("no answer to the last line within 30 s");
      const { done, value } = await reader.read();
      if (done) throw new Error(`stdout ended: ${buffered}`);
      buffered += value;
    }
    const line = buffered.slice(0, buffered.indexOf("\n"));
    buffered = buffered.slice(line.length + 1);
    return JSON.parse(line);
  };
  return {
    child,
    /** Writes one call and returns its answer. */
    async call(line: unknown): Promise<Record<string, unknown>> {
      await writer.write(new TextEncoder().encode(JSON.stringify(line) + "\n"));
      return nextLine();
    },
    /** Ends stdin: the process finishes its calls and exits. */
    end: () => writer.close(),
    async stop(): Promise<void> {
      try {
        child.kill("SIGKILL");
      } catch {
        // Ended.
      }
      await child.status;
      await writer.close().catch(() => {});
      await reader.cancel().catch(() => {});
    },
  };
}

export function parseJsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
}

/**
 * A scripted mock endpoint and a fresh sandbox pointed at it, both cleaned up
 * after `work`.
 */
export async function withMockSandbox(
  script: MockTurn[],
  work: (sandbox: Sandbox, mock: MockServer) => Promise<void>,
  options: MockServerOptions = {},
): Promise<void> {
  const mock = startMockServer(script, options);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await work(sandbox, mock);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
}
