/**
 * The real MCP test server, `@modelcontextprotocol/server-everything` from
 * npm, run through Deno's npm support and pinned in deno.lock. Tests that
 * need it skip loudly when it cannot be fetched.
 */
import * as path from "node:path";

export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
/** The repository root, so the server resolves through our deno.lock. */
export const REPO_ROOT = path.resolve(import.meta.dirname!, "..", "..");
export const DENO = Deno.execPath();

async function fetchable(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(DENO, {
      args: ["cache", EVERYTHING],
      cwd: REPO_ROOT,
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

export const hasEverything = await fetchable();
if (!hasEverything) {
  console.warn(`SKIPPING MCP server tests: ${EVERYTHING} could not be fetched from npm`);
}

/** Server entry for stdio, as a user would write it in config. */
export function stdioServer(extra: Record<string, unknown> = {}) {
  return { command: DENO, args: ["run", "-A", EVERYTHING, "stdio"], cwd: REPO_ROOT, ...extra };
}

/**
 * The same server as a project file would name it: no `cwd` (a project
 * server's `cwd` must stay inside the project), resolving through our
 * deno.json and lock with `--config`.
 */
export function projectStdioServer(extra: Record<string, unknown> = {}) {
  const config = path.join(REPO_ROOT, "deno.json");
  return { command: DENO, args: ["run", "-A", "--config", config, EVERYTHING, "stdio"], ...extra };
}

export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts the server in streamable HTTP mode on `port` and waits until it accepts connections. */
export async function startHttpServer(
  port: number,
  mode: "streamableHttp" | "sse" = "streamableHttp",
): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", EVERYTHING, mode],
    cwd: REPO_ROOT,
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`server-everything did not listen on port ${port} within 60 s`);
}

export async function stopProcess(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGKILL");
  } catch {
    // Already exited.
  }
  await child.status;
}

export function isAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}
