/**
 * Shared ground for the escape suite: a workspace with a git folder and
 * skiff config, an "outside" folder and a fake home next to it (not under
 * /tmp, which the sandbox replaces, so the sandbox really sees them
 * read-only), snapshots to prove nothing changed on disk, and runners for a
 * tool call through the permission gate and for a command under bubblewrap.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { makeContext } from "../tools/_context.ts";
import { createHash } from "node:crypto";
import { type ApprovalBroker, HeadlessBroker, YesBroker } from "../../src/permission/broker.ts";
import { PermissionGate } from "../../src/permission/gate.ts";
import { buildLayers, type LayerSources } from "../../src/permission/layers.ts";
import { bwrapLauncher } from "../../src/sandbox/bwrap/bwrap.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import type { SandboxMode } from "../../src/sandbox/modes.ts";
import { toErrorPayload } from "../../src/engine/loop/tool_call.ts";
import type { ToolErrorPayload } from "../../src/contracts/events.ts";
import type { Tool, ToolContext } from "../../src/tools/tool.ts";

const found = await probeSandboxes();
export const BWRAP = found.bwrap;
export const hasBwrap = BWRAP !== null;
if (!hasBwrap) {
  console.warn(
    "\n!!! ESCAPE SUITE: bubblewrap is missing or cannot create namespaces here, so every " +
      "process-escape test is SKIPPED. Install it (apt-get install bubblewrap) to run them. !!!\n",
  );
}
/** For tests that need bubblewrap: skipped loudly (above) when it is absent. */
export const needsBwrap = { ignore: !hasBwrap };

export interface Layout {
  root: string;
  ws: string;
  outside: string;
  home: string;
  secret: string;
  cleanup(): void;
}

function tempBase(): string | undefined {
  // /tmp is replaced by a private tmpfs in the sandbox; use a folder the sandbox sees.
  try {
    Deno.mkdirSync("/var/tmp", { recursive: true });
    const probe = Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-probe-" });
    Deno.removeSync(probe);
    return "/var/tmp";
  } catch {
    return undefined;
  }
}
const BASE = tempBase();

export function makeLayout(): Layout {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ dir: BASE, prefix: "skiff-escape-" }));
  const ws = path.join(root, "ws");
  const outside = path.join(root, "outside");
  const home = path.join(root, "home");
  for (const dir of [ws, outside, home, path.join(ws, "src"), path.join(ws, ".git", "hooks")]) {
    Deno.mkdirSync(dir, { recursive: true });
  }
  Deno.writeTextFileSync(path.join(ws, ".git", "config"), "[core]\n\tbare = false\n");
  Deno.writeTextFileSync(path.join(ws, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n");
  Deno.writeTextFileSync(path.join(ws, "skiff.json"), '{"permission": {"bash": "ask"}}\n');
  Deno.mkdirSync(path.join(ws, ".skiff"));
  Deno.writeTextFileSync(path.join(ws, ".skiff", "config.json"), "{}\n");
  Deno.writeTextFileSync(path.join(ws, "src", "a.txt"), "inside\n");
  Deno.writeTextFileSync(path.join(ws, "victim.txt"), "keep me\n");
  const secret = path.join(outside, "secret.txt");
  Deno.writeTextFileSync(secret, "outside secret\n");
  Deno.writeTextFileSync(path.join(home, ".bashrc"), "# user's shell\n");
  return {
    root,
    ws,
    outside,
    home,
    secret,
    cleanup: () => Deno.removeSync(root, { recursive: true }),
  };
}

/** Every entry under `dir`: type, mode, size and content hash, or link target. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of Deno.readDirSync(current)) {
      const full = path.join(current, entry.name);
      const rel = path.relative(dir, full);
      const info = Deno.lstatSync(full);
      if (info.isSymlink) out[rel] = `link:${Deno.readLinkSync(full)}`;
      else if (info.isDirectory) {
        out[rel] = `dir:${info.mode}`;
        walk(full);
      } else {
        const hash = createHash("sha256").update(Deno.readFileSync(full)).digest("hex");
        out[rel] = `file:${info.mode}:${hash}`;
      }
    }
  };
  walk(dir);
  return out;
}

/** Snapshot of the whole layout, to compare before and after an attempt. */
export function snapshotAll(layout: Layout): Record<string, string> {
  return snapshot(layout.root);
}

/**
 * Runs `command` with `run` (a backend's runner: bubblewrap's runSandboxed,
 * the Landlock suite's) on a fresh layout, after `prepare`; asserts nothing
 * on disk changed and returns what the command printed.
 */
export async function unchangedBy<Options>(
  run: (layout: Layout, command: string, options: Options) => Promise<CommandResult>,
  command: (layout: Layout) => string,
  options: Options,
  prepare: (layout: Layout) => void = () => {},
): Promise<CommandResult> {
  const layout = makeLayout();
  try {
    prepare(layout);
    const before = snapshotAll(layout);
    const result = await run(layout, command(layout), options);
    assertEquals(snapshotAll(layout), before, `something changed on disk: ${result.stderr}`);
    return result;
  } finally {
    layout.cleanup();
  }
}

/** The command's last line of output must be "blocked", printed when its attempt failed. */
export function blocked(result: CommandResult): void {
  assertEquals(
    result.stdout.trim().split("\n").pop(),
    "blocked",
    `output: ${result.stdout} ${result.stderr}`,
  );
}

export function toolContext(layout: Layout): ToolContext {
  return makeContext(layout.ws, undefined, { dataDir: path.join(layout.root, "data") });
}

export interface ToolAttempt {
  allowed: boolean;
  ok: boolean;
  error?: ToolErrorPayload;
  output?: string;
}

/**
 * A model's tool call, the way the loop makes it: declare, the permission
 * gate (headless, or `--yes` when `yes`), then execute only if allowed.
 */
export async function attemptTool(
  layout: Layout,
  tool: Tool<unknown>,
  input: unknown,
  options: { yes?: boolean; mode?: SandboxMode; sources?: LayerSources; ctx?: ToolContext } = {},
): Promise<ToolAttempt> {
  const ctx = options.ctx ?? toolContext(layout);
  const broker: ApprovalBroker = options.yes ? new YesBroker() : new HeadlessBroker();
  const gate = new PermissionGate({
    layers: buildLayers(options.sources ?? {}),
    workspace: layout.ws,
    mode: options.mode ?? "workspace-write",
    broker,
    brokerSource: options.yes ? "yes" : "headless",
  });
  try {
    const parsed = tool.schema.parse(input);
    const access = await tool.declare(parsed, ctx);
    const verdict = await gate.check(tool.name, parsed, access);
    if (!verdict.allowed) return { allowed: false, ok: false, error: verdict.error.toJSON() };
    const result = await tool.execute(parsed, ctx);
    return { allowed: true, ok: true, output: result.output };
  } catch (error) {
    return { allowed: true, ok: false, error: toErrorPayload(error) };
  }
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `command` in the workspace under bubblewrap, as the bash tool would. */
export async function runSandboxed(
  layout: Layout,
  command: string,
  options: { network?: boolean; mode?: SandboxMode; envNames?: string[] } = {},
): Promise<CommandResult> {
  const launcher = bwrapLauncher({
    mode: options.mode ?? "workspace-write",
    workspace: layout.ws,
    addDirs: [],
    network: options.network ?? false,
    envNames: options.envNames ?? [],
  }, {
    bwrapPath: BWRAP ?? "bwrap",
    getEnv: (name) => (name === "HOME" ? layout.home : Deno.env.get(name)),
  });
  const { argv, env } = await launcher.prepare(command, layout.ws);
  const output = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}
