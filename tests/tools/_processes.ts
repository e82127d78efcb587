/**
 * Helpers for tests that run real processes: a workspace whose context has a
 * working launcher and background table, and a way to find survivors.
 */
import { BackgroundProcesses } from "../../src/tools/process/background.ts";
import { plainLauncher as sandboxPlainLauncher } from "../../src/sandbox/plain.ts";
import { makeWorkspace } from "./_context.ts";

/** `sh -c` with the child environment allowlist and no OS sandbox (full-access). */
export const plainLauncher = sandboxPlainLauncher({
  mode: "full-access",
  workspace: "/",
  addDirs: [],
  network: true,
  envNames: [],
});

/** A workspace whose context really runs processes. */
export async function processWorkspace() {
  const ws = await makeWorkspace();
  ws.ctx.launcher = plainLauncher;
  ws.ctx.background = new BackgroundProcesses(plainLauncher, { killGraceMs: 500 });
  return ws;
}

/** A marker that makes this test's processes findable with `pgrep -f`. */
export function uniqueSleep(): string {
  return `${300 + Math.floor(Math.random() * 600)}.${Date.now() % 100000}${
    Math.floor(Math.random() * 1000)
  }`;
}

/** Command lines of live processes that contain `marker`. */
export async function survivors(marker: string): Promise<string> {
  const { stdout } = await new Deno.Command("pgrep", { args: ["-af", marker] }).output();
  return new TextDecoder().decode(stdout).trim();
}
