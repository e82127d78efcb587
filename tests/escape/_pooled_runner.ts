/**
 * Runs an escape attempt the way the bash tool runs it through the
 * session-long sandbox (src/sandbox/pool/pool.ts): a pool with the same
 * settings as `runSandboxed`, a first command so the attempt runs in a
 * sandbox that already served one (reuse is what the pool adds), then the
 * attempt itself in that same sandbox, leased and released as bash does.
 */
import { assertEquals } from "../support/assert.ts";
import { bwrapSessionLauncher, type ClosableLauncher } from "../../src/sandbox/bwrap/session.ts";
import type { SandboxPool } from "../../src/sandbox/pool/pool.ts";
import type { SandboxMode } from "../../src/sandbox/modes.ts";
import { BWRAP, type CommandResult, type Layout } from "./_harness.ts";

/**
 * Whether the session sandbox works here (bubblewrap and a writable pids
 * cgroup); the reason when it does not. Tests of the
 * pooled path skip loudly without it: skiff then runs one bwrap per command.
 */
export async function probeSessionSandbox(): Promise<string | null> {
  if (!BWRAP) return "bubblewrap is missing or cannot create namespaces here";
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ dir: Deno.cwd(), prefix: ".pool-probe-" }));
  const launcher = bwrapSessionLauncher(
    { mode: "read-only", workspace: dir, addDirs: [], network: false, envNames: [] },
    { bwrapPath: BWRAP },
  );
  try {
    const box = await launcher.pool.acquire({ PATH: "/usr/bin:/bin" });
    const availability = launcher.pool.availability;
    if (box) launcher.pool.release(box);
    return availability?.usable ? null : availability?.reason ?? "the pool did not start";
  } finally {
    await launcher.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

/** Null when the session sandbox works here, else why not (see `probeSessionSandbox`). */
export const sessionSandboxMissing = await probeSessionSandbox();
if (sessionSandboxMissing) {
  console.warn(
    `\n!!! SESSION SANDBOX: ${sessionSandboxMissing}; every test of the pooled path is SKIPPED ` +
      "(skiff runs one bwrap per command here). CI runs them as root. !!!\n",
  );
}

/** A launcher with a session sandbox (sandbox/bwrap/session.ts, sandbox/landlock/session.ts). */
type SessionLauncher = ClosableLauncher & { pool: SandboxPool };

async function leased(
  launcher: SessionLauncher,
  command: string,
  cwd: string,
): Promise<CommandResult> {
  const after = launcher.guard!.before();
  try {
    // As the bash tool asks: the pool's holder starts the command, its
    // stdout and stderr merged (reported here as stdout).
    const prepared = await launcher.prepare(command, cwd, { lifeline: true, attach: true });
    if (!prepared.attached) throw new Error("the pool did not take the command");
    const decoder = new TextDecoder();
    let stdout = "";
    const run = prepared.attached((bytes) => stdout += decoder.decode(bytes, { stream: true }));
    const timer = setTimeout(() => run.stop(), 20_000);
    const { code } = await run.done;
    clearTimeout(timer);
    return { code, stdout: stdout + decoder.decode(), stderr: "" };
  } finally {
    after();
  }
}

/** Like `runSandboxed`, through a pooled sandbox that already ran a command. */
export function runPooled(
  layout: Layout,
  command: string,
  options: { network?: boolean; mode?: SandboxMode; envNames?: string[] } = {},
): Promise<CommandResult> {
  const launcher = bwrapSessionLauncher({
    mode: options.mode ?? "workspace-write",
    workspace: layout.ws,
    addDirs: [],
    network: options.network ?? false,
    envNames: options.envNames ?? [],
  }, {
    bwrapPath: BWRAP ?? "bwrap",
    getEnv: (name) => (name === "HOME" ? layout.home : Deno.env.get(name)),
  });
  return runInSession(launcher, layout, command);
}

/**
 * `command` through `launcher`'s session sandbox (bubblewrap's or
 * Landlock's) once it already ran a command, as the bash tool runs it;
 * closes the launcher.
 */
export async function runInSession(
  launcher: SessionLauncher,
  layout: Layout,
  command: string,
): Promise<CommandResult> {
  try {
    const first = await leased(launcher, "echo warm", layout.ws);
    assertEquals(first.stdout, "warm\n", `the session sandbox did not start: ${first.stderr}`);
    // Let the holder empty /tmp for the next lease, so the attempt reuses this sandbox.
    const deadline = Date.now() + 10_000;
    while (!(await launcher.pool.idle()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const result = await leased(launcher, command, layout.ws);
    assertEquals(launcher.pool.size, 1, "the attempt did not run in the reused sandbox");
    return result;
  } finally {
    await launcher.close();
  }
}
