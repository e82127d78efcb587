/**
 * The third-party MCP clients these tests run, at the versions they were
 * written against (.ci/run installs them), and skiff as those clients start
 * it. A client that is missing, or present at another version, fails the
 * test that needs it with the command that installs the right one.
 */
import * as path from "node:path";
import { MAIN, type Sandbox } from "../../support/cli.ts";

/** npm packages installed globally, pinned. */
export const INSPECTOR = { name: "@modelcontextprotocol/inspector", version: "2.12.0" } as const;
export const CODEX = { name: "@openai/codex", version: "0.171.0" } as const;
/** The Python MCP SDK (pip package `mcp`), pinned. */
export const PYTHON_MCP_VERSION = "2.3.0";

const decoder = new TextDecoder();

async function output(program: string, args: string[]): Promise<string | undefined> {
  try {
    const result = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" })
      .output();
    return result.success ? decoder.decode(result.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folder of a globally installed npm package at exactly its pinned
 * version; throws naming the install command otherwise.
 */
export async function npmPackage(pinned: { name: string; version: string }): Promise<string> {
  const install = `npm install -g ${pinned.name}@${pinned.version} (see .ci/run)`;
  const root = await output("npm", ["root", "-g"]);
  if (!root) throw new Error(`npm is not on PATH: ${pinned.name} cannot be found; ${install}`);
  const folder = path.join(root, pinned.name);
  let found: string;
  try {
    found = JSON.parse(await Deno.readTextFile(path.join(folder, "package.json"))).version;
  } catch {
    throw new Error(`${pinned.name} is not installed in ${root}: ${install}`);
  }
  if (found !== pinned.version) {
    throw new Error(
      `${pinned.name} is ${found} in ${root}, these tests need ${pinned.version}: ${install}`,
    );
  }
  return folder;
}

/**
 * The Python interpreter (its real path, not a version manager's shim,
 * which a child with another HOME cannot resolve) that has the pinned `mcp`.
 */
export async function pythonWithMcp(): Promise<string> {
  const install = `python3 -m pip install mcp==${PYTHON_MCP_VERSION} (see .ci/run)`;
  const found = await output("python3", [
    "-c",
    "import sys, importlib.metadata as m\nprint(sys.executable)\nprint(m.version('mcp'))",
  ]);
  if (!found) throw new Error(`python3 with the mcp package was not found: ${install}`);
  const [executable, version] = found.split("\n");
  if (version !== PYTHON_MCP_VERSION) {
    throw new Error(`python mcp is ${version}, these tests need ${PYTHON_MCP_VERSION}: ${install}`);
  }
  return executable;
}

/** How a client starts skiff (this tree's): the program and the arguments before skiff's own. */
export function skiffProgram(): { command: string; args: string[] } {
  const binary = Deno.env.get("SKIFF_BIN");
  if (binary) return { command: binary, args: [] };
  return {
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--unstable-worker-options", "--no-prompt", MAIN],
  };
}

/** How a client starts `skiff mcp serve` with `extra` flags. */
export function skiffServeCommand(extra: string[] = []): { command: string; args: string[] } {
  const { command, args } = skiffProgram();
  return { command, args: [...args, "mcp", "serve", ...extra] };
}

/**
 * A `skiff` on PATH for a client configured by name (`command = "skiff"`),
 * as the docs show it: a script in the sandbox's `bin` that starts this
 * tree's skiff, with Deno's cache, as an installed skiff would need none.
 * Returns the PATH that finds it first.
 */
export async function skiffOnPath(sandbox: Sandbox): Promise<string> {
  const bin = path.join(sandbox.root, "bin");
  await Deno.mkdir(bin, { recursive: true });
  const { command, args } = skiffProgram();
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const script = [
    "#!/bin/sh",
    `export DENO_DIR=${quote(sandbox.env.DENO_DIR)}`,
    `exec ${[command, ...args].map(quote).join(" ")} "$@"`,
    "",
  ];
  await Deno.writeTextFile(path.join(bin, "skiff"), script.join("\n"), { mode: 0o755 });
  return `${bin}:${sandbox.env.PATH}`;
}

/** `skiff mcp serve --http 0` running in the sandbox, with the URL and token it printed. */
export interface HttpServe {
  url: string;
  token: string;
  /** Waits until stderr holds `pattern` (at most 30 s) and returns all of stderr. */
  stderrUntil(pattern: RegExp): Promise<string>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `skiff mcp serve --http 0 …extra` in the sandbox and waits for its URL and token. */
export async function startHttpServe(sandbox: Sandbox, extra: string[] = []): Promise<HttpServe> {
  const { command, args } = skiffServeCommand(["--http", "0", ...extra]);
  const child = new Deno.Command(command, {
    args,
    cwd: sandbox.workspace,
    env: sandbox.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const stderrUntil = async (pattern: RegExp) => {
    const deadline = setTimeout(() => reader.cancel(), 30_000);
    try {
      while (!pattern.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`skiff mcp serve wrote no ${pattern} on stderr: ${seen}`);
        seen += value;
      }
      return seen;
    } finally {
      clearTimeout(deadline);
    }
  };
  try {
    await stderrUntil(/token: [0-9a-f]{64}/);
  } catch (error) {
    child.kill("SIGKILL");
    await child.status;
    throw error;
  }
  return {
    url: /url: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen)![1],
    token: /token: ([0-9a-f]{64})/.exec(seen)![1],
    stderrUntil,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}
