/**
 * The chat in a real terminal for tests: tmux runs skiff against the scripted
 * mock model, the test types with send-keys and reads the pane with
 * capture-pane, every wait polling against a deadline. Where tmux is absent
 * the tests that need it are skipped with a loud warning (`warnWithoutTmux`).
 */
import * as path from "node:path";
import { MAIN, makeSandbox, type Sandbox } from "./cli.ts";
import {
  type MockServer,
  type MockServerOptions,
  type MockTurn,
  startMockServer,
} from "./mock_server.ts";

export const hasTmux = await new Deno.Command("tmux", {
  args: ["-V"],
  stdout: "null",
  stderr: "null",
}).output().then((output) => output.success, () => false);

/** Call once per test file: says loudly which tests are skipped when tmux is missing. */
export function warnWithoutTmux(what: string): void {
  if (!hasTmux) console.warn(`SKIPPED ${what}: tmux is not installed`);
}

export async function tmux(...args: string[]): Promise<string> {
  const output = await new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout);
}

export const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export interface WaitOptions {
  /** Keep colour and style sequences in the capture. */
  escapes?: boolean;
  /** @default 30_000 */
  timeoutMs?: number;
  /** Rows of history captured above the screen. @default 400 */
  history?: number;
}

/** The pane (history included), polled until `until` holds; throws with the last capture. */
export async function waitFor(
  session: string,
  until: (screen: string) => boolean,
  what: string,
  options: WaitOptions = {},
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const screen = await tmux(
      "capture-pane",
      "-t",
      session,
      "-p",
      "-J",
      "-S",
      `-${options.history ?? 400}`,
      ...(options.escapes ? ["-e"] : []),
    );
    if (until(screen)) return screen;
    if (Date.now() > deadline) throw new Error(`${what} never happened; screen:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The pane once it shows `text`. */
export const shows = (session: string, text: string, options: WaitOptions = {}) =>
  waitFor(session, (screen) => screen.includes(text), `"${text}" on screen`, options);

/** The pane's visible rows (no history). */
export const visible = async (session: string) =>
  (await tmux("capture-pane", "-t", session, "-p")).split("\n");

/** Types `text` literally (no key names). */
export const type = (session: string, text: string) => tmux("send-keys", "-t", session, "-l", text);
/** Presses keys by tmux's names (Enter, Escape, C-d, …). */
export const press = (session: string, ...keys: string[]) =>
  tmux("send-keys", "-t", session, ...keys);

export async function typeLine(session: string, text: string): Promise<void> {
  await type(session, text);
  await press(session, "Enter");
}

/**
 * The shell line that runs `skiff <args>` (already quoted as the shell wants
 * them) in the sandbox's workspace with only its environment, then prints
 * `SKIFF_EXIT=<code>` and keeps the pane open.
 */
export function skiffLine(sandbox: Sandbox, args = ""): string {
  const env = Object.entries(sandbox.env).map(([name, value]) => `${name}=${quote(value)}`)
    .join(" ");
  return `cd ${quote(sandbox.workspace)} && env -i ${env} TERM=xterm ${
    quote(Deno.execPath())
  } run --quiet -A --unstable-worker-options --no-prompt ${
    quote(MAIN)
  } ${args}; echo SKIFF_EXIT=$?; sleep 60`;
}

/** A detached tmux session of `width`×`height` running `command`. */
export async function newSession(
  session: string,
  command: string,
  width = 120,
  height = 40,
): Promise<void> {
  await tmux(
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    String(width),
    "-y",
    String(height),
    command,
  );
}

export const sessionName = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** The killed skiff may still be writing its data folder for a moment: retry until it is gone. */
export async function removeWhenQuiet(sandbox: Sandbox): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await sandbox.cleanup();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** What `inTerminal` and `inChat` may be given besides the script. */
export interface TerminalOptions {
  prefix?: string;
  mock?: MockServerOptions;
  prepare?: (sandbox: Sandbox) => Promise<void>;
}

/**
 * `skiff <args>` in a 120×40 pane against a mock playing `script`, driven
 * from its start; tmux, mock and sandbox go away after.
 */
export async function inTerminal(
  script: MockTurn[],
  args: string,
  drive: (session: string, sandbox: Sandbox, mock: MockServer) => Promise<void>,
  options: TerminalOptions = {},
): Promise<void> {
  const mock = startMockServer(script, options.mock);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  const session = sessionName(options.prefix ?? "skiff-chat");
  try {
    await options.prepare?.(sandbox);
    await newSession(session, skiffLine(sandbox, args));
    await drive(session, sandbox, mock);
  } finally {
    await tmux("kill-session", "-t", session);
    await mock.close();
    await removeWhenQuiet(sandbox);
  }
}

/**
 * `skiff` (no arguments), as `inTerminal`, driven once its input is ready.
 */
export function inChat(
  script: MockTurn[],
  drive: (session: string, sandbox: Sandbox, mock: MockServer) => Promise<void>,
  options: TerminalOptions = {},
): Promise<void> {
  return inTerminal(script, "", async (session, sandbox, mock) => {
    await shows(session, "Ctrl-D to exit");
    await drive(session, sandbox, mock);
  }, options);
}

export interface Shell {
  session: string;
  sandbox: Sandbox;
  mock: MockServer;
  /** Types a shell command line and Enter. */
  shell(line: string): Promise<void>;
}

/**
 * A shell in tmux whose PATH starts with a `skiff` that runs this checkout,
 * with the sandbox's environment (colour on unless `env` says otherwise), so
 * what skiff prints can be typed back exactly as printed.
 */
export async function inShell(
  script: MockTurn[],
  drive: (shell: Shell) => Promise<void>,
  options: {
    env?: Record<string, string>;
    width?: number;
    prepare?: (s: Sandbox) => Promise<void>;
    mock?: MockServerOptions;
  } = {},
): Promise<void> {
  const mock = startMockServer(script, options.mock);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  const session = sessionName("skiff-term");
  const bin = path.join(sandbox.root, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    path.join(bin, "skiff"),
    `#!/bin/sh\nexec ${
      quote(Deno.execPath())
    } run --quiet -A --unstable-worker-options --no-prompt ${quote(MAIN)} "$@"\n`,
    { mode: 0o755 },
  );
  await options.prepare?.(sandbox);
  // Colour on, as at a person's terminal (the sandbox's NO_COLOR is for piped runs).
  const { NO_COLOR: _plain, ...inherited } = sandbox.env;
  const env: Record<string, string> = {
    ...inherited,
    TERM: "xterm-256color",
    PS1: "$ ",
    ...options.env,
  };
  env.PATH = `${bin}:${env.PATH}`;
  const exports = Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`).join(" ");
  try {
    await newSession(
      session,
      `cd ${quote(sandbox.workspace)} && env -i ${exports} bash --norc --noprofile -i`,
      options.width ?? 120,
    );
    await drive({ session, sandbox, mock, shell: (line) => typeLine(session, line) });
  } finally {
    await tmux("kill-session", "-t", session);
    await mock.close();
    await removeWhenQuiet(sandbox);
  }
}
