/**
 * What one short sandboxed command costs through skiff's launcher, against
 * the same command unsandboxed (the full-access launcher), and where the
 * difference goes, measured in one run with the phases interleaved so a
 * noisy machine hits every figure alike:
 * - the whole bash-tool path (guard around `startGroup`) for `true` and
 *   `echo hi`, sandboxed and not, against its bar (docs/performance.md);
 * - its parts: building the bwrap argv (`prepare`), starting bubblewrap
 *   alone, the root `pids` cgroup step, the command guard's survey before
 *   and after, and the shell parser the policy runs on the command text.
 *
 * The workspace is a small git repository in a temp folder outside /tmp.
 * SKIFF_BENCH_BEFORE=<tree> adds the session sandbox, the guard and
 * `prepare` of another checkout (a before-tree, `git worktree add`) to the
 * same interleaved rounds, and their paired differences.
 * Run: deno run --allow-all scripts/bench_sandbox.ts
 */
import * as path from "node:path";
import { bwrapLauncher } from "../src/sandbox/bwrap/bwrap.ts";
import { bwrapSessionLauncher } from "../src/sandbox/bwrap/session.ts";
import { landlockAbi } from "../src/sandbox/landlock/landlock.ts";
import { landlockLauncher } from "../src/sandbox/landlock/launcher.ts";
import { landlockSessionLauncher } from "../src/sandbox/landlock/session.ts";
import { plainLauncher } from "../src/sandbox/plain.ts";
import { CommandGuard } from "../src/sandbox/guard/command_guard.ts";
import { commandShell } from "../src/sandbox/shell.ts";
import type { SandboxSettings } from "../src/sandbox/modes.ts";
import type { ProcessLauncher } from "../src/contracts/process_launcher.ts";
import { startGroup } from "../src/tools/process/_process_group.ts";
import { alwaysPatterns } from "../src/permission/always.ts";
import { ensureShellParser } from "../src/permission/shell/shell_parser.ts";

/** A difference in ms with its sign: "+1.2", "−0.4". */
function signed(ms: number): string {
  return `${ms < 0 ? "−" : "+"}${Math.abs(ms).toFixed(1)}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** One command the way the bash tool runs it: guard, process group, output, guard check. */
async function runLikeBash(launcher: ProcessLauncher, command: string, cwd: string) {
  const check = launcher.guard?.before();
  let output = "";
  const group = await startGroup({ launcher, command, cwd, onOutput: (text) => output += text });
  const exit = await group.done;
  const reverted = check?.() ?? null;
  if (exit.code !== 0 || reverted) {
    throw new Error(`'${command}' failed (${exit.code}): ${output} ${reverted ?? ""}`);
  }
  return output;
}

async function spawnArgv(argv: string[], env: Record<string, string>, cwd: string) {
  const output = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
}

/** How the bench's temporary workspace folders are named. */
export const BENCH_TEMP_PREFIX = "skiff-bench-sandbox-";

/**
 * Where the bench's workspace goes: a temporary folder outside the source
 * tree (it left `.bench-sandbox-*` folders in the current folder), and not
 * under /tmp, which the sandbox mounts its own over. SKIFF_BENCH_TMP names
 * another parent. @default "/var/tmp"
 */
function benchTempParent(): string {
  return Deno.env.get("SKIFF_BENCH_TMP") || "/var/tmp";
}

function makeWorkspace(): { root: string; ws: string } {
  const root = Deno.makeTempDirSync({ dir: benchTempParent(), prefix: BENCH_TEMP_PREFIX });
  const ws = path.join(root, "ws");
  Deno.mkdirSync(path.join(ws, "src"), { recursive: true });
  for (let index = 0; index < 50; index++) {
    Deno.writeTextFileSync(path.join(ws, "src", `f${index}.ts`), `export const n = ${index};\n`);
  }
  new Deno.Command("git", { args: ["init", "-q", ws], stdout: "null", stderr: "null" })
    .outputSync();
  return { root, ws: Deno.realPathSync(ws) };
}

/** The bench, its workspace removed however it ends: done, failed or Ctrl-C. */
export async function benchSandbox(rounds = 25): Promise<string[]> {
  const { root, ws } = makeWorkspace();
  const remove = () => Deno.removeSync(root, { recursive: true });
  const onInterrupt = () => {
    remove();
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    return await benchIn(ws, rounds);
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
    remove();
  }
}

async function benchIn(ws: string, rounds: number): Promise<string[]> {
  const shell = commandShell().program;
  const settings = (mode: SandboxSettings["mode"]): SandboxSettings => ({
    mode,
    workspace: ws,
    addDirs: [],
    network: false,
    envNames: [],
  });
  const guard = new CommandGuard({ roots: [ws] });
  const sandboxed: ProcessLauncher = {
    ...bwrapLauncher(settings("workspace-write"), { shell }),
    guard,
  };
  const unsandboxed = plainLauncher(settings("full-access"), { shell });
  // One session sandbox per phase: a phase right after another on the same
  // sandbox would wait for its cleaning, which a model's turn hides.
  const pooled = bwrapSessionLauncher(settings("workspace-write"), { shell }, guard);
  const pooledEcho = bwrapSessionLauncher(settings("workspace-write"), { shell }, guard);
  const pooledBare = bwrapSessionLauncher(settings("workspace-write"), { shell });
  const pooledArgv = bwrapSessionLauncher(settings("workspace-write"), { shell });
  const root0 = Deno.uid() === 0;
  // The Landlock backend (CI containers without user namespaces): one exec step per command.
  const abi = landlockAbi();
  const landlock: ProcessLauncher | null = typeof abi === "number"
    ? { ...landlockLauncher(settings("workspace-write"), { abi, shell }), guard }
    : null;
  if (!landlock) console.error(`bench_sandbox: no Landlock here (${abi}); its lines are left out`);
  // And where it stays up for the session (src/sandbox/landlock/session.ts): one per phase, as above.
  const landlockPooled = typeof abi === "number"
    ? [
      landlockSessionLauncher(settings("workspace-write"), { abi, shell }, guard),
      landlockSessionLauncher(settings("workspace-write"), { abi, shell }, guard),
    ]
    : [];
  const before = await beforeTree(ws, settings("workspace-write"), shell);
  await ensureShellParser();
  const phases: [string, () => Promise<unknown> | unknown][] = [
    ["unsandboxed `true` (bash-tool path)", () => runLikeBash(unsandboxed, "true", ws)],
    ["sandboxed `true` (bash-tool path)", () => runLikeBash(sandboxed, "true", ws)],
    ["unsandboxed `echo hi`", () => runLikeBash(unsandboxed, "echo hi", ws)],
    ["sandboxed `echo hi`", () => runLikeBash(sandboxed, "echo hi", ws)],
    ["pooled sandbox `true`", () => runLikeBash(pooled, "true", ws)],
    ["pooled sandbox `echo hi`", () => runLikeBash(pooledEcho, "echo hi", ws)],
    ["pooled sandbox `true`, no command guard", () => runLikeBash(pooledBare, "true", ws)],
    ...(landlock
      ? [
        ["landlock `true` (exec step per command)", () => runLikeBash(landlock, "true", ws)],
        ["landlock session `true`", () => runLikeBash(landlockPooled[0], "true", ws)],
        ["landlock session `echo hi`", () => runLikeBash(landlockPooled[1], "echo hi", ws)],
      ] as [string, () => Promise<unknown>][]
      : []),
    ...(before?.phases ?? []),
    ["  pooled run alone (the holder's fork and bash)", async () => {
      const after = pooledArgv.guard!.before();
      const prepared = await pooledArgv.prepare("true", ws, { lifeline: true, attach: true });
      if (!prepared.attached) throw new Error("the session sandbox did not take the command");
      const { code } = await prepared.attached(() => {}).done;
      after();
      if (code !== 0) throw new Error(`the pooled run failed (${code})`);
    }],
    ["  unsandboxed argv alone (bash)", async () => {
      const { argv, env } = await unsandboxed.prepare("true", ws);
      await spawnArgv(argv, env, ws);
    }],
    ["  prepare (bwrap argv)", () => sandboxed.prepare("true", ws, { lifeline: true })],
    ["  guard before + after", () => guard.before()()],
    ["  shell parser (policy)", () => alwaysPatterns("echo hi && true")],
    ["  sh -c true", () => spawnArgv(["sh", "-c", "true"], {}, ws)],
    ["  bwrap alone (minimal)", () =>
      spawnArgv(
        [
          "bwrap",
          "--ro-bind",
          "/",
          "/",
          "--dev",
          "/dev",
          "--proc",
          "/proc",
          "--unshare-all",
          "--die-with-parent",
          "/bin/true",
        ],
        {},
        ws,
      )],
    ["  bwrap, skiff's argv, no cgroup step", async () => {
      const { argv, env } = await bwrapLauncher(settings("workspace-write"), { shell, uid: 1 })
        .prepare("true", ws);
      // uid 1 leaves out the root-only steps but keeps --unshare-user-try; as root add them back.
      const args = root0
        ? argv.map((arg) => arg === "--unshare-user-try" ? "--unshare-user" : arg)
        : argv;
      await spawnArgv(args, env, ws);
    }],
  ];
  const samples = phases.map(() => [] as number[]);
  try {
    // What a phase leaves running (a session sandbox emptying its temp folders,
    // the per-command Landlock watchdog's sweep) ends before the next is timed,
    // as a model's turn lets it: else it competes with that phase for the CPU.
    const sessions = [pooled, pooledEcho, pooledBare, pooledArgv, ...landlockPooled];
    const settle = async () => {
      while (!(await Promise.all(sessions.map((session) => session.pool.idle()))).every(Boolean)) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await new Promise((resolve) => setTimeout(resolve, 30));
    };
    for (const [, work] of phases) await work(); // warm up
    for (let round = 0; round < rounds; round++) {
      for (const [index, [, work]] of phases.entries()) {
        await settle();
        samples[index].push(await timed(work));
      }
    }
  } finally {
    for (const launcher of [pooled, pooledEcho, pooledBare, pooledArgv, ...landlockPooled]) {
      await launcher.close();
    }
    await before?.close();
  }
  const figures = samples.map(median);
  const lines = phases.map(([name], index) =>
    `${name.padEnd(48)} ${figures[index].toFixed(1).padStart(6)} ms`
  );
  const [plainTrue, boxTrue, plainEcho, boxEcho, poolTrue, poolEcho, bareTrue] = figures;
  const at = (name: string) => figures[phases.findIndex(([phase]) => phase === name)];
  if (landlock) {
    const landlockTrue = at("landlock `true` (exec step per command)");
    const sessionTrue = at("landlock session `true`");
    const sessionEcho = at("landlock session `echo hi`");
    lines.push(
      `landlock (exec step per command) − unsandboxed: true ${
        signed(landlockTrue - plainTrue)
      } ms (${(landlockTrue / plainTrue).toFixed(2)}×)`,
      `landlock session − unsandboxed: true ${signed(sessionTrue - plainTrue)} ms (${
        (sessionTrue / plainTrue).toFixed(2)
      }×), echo hi ${signed(sessionEcho - plainEcho)} ms (${
        (sessionEcho / plainEcho).toFixed(2)
      }×) (target ≤ +5 ms) ${
        Math.max(sessionTrue - plainTrue, sessionEcho - plainEcho) <= 5 ? "OK" : "OVER"
      }`,
    );
  }
  const worst = Math.max(poolTrue - plainTrue, poolEcho - plainEcho);
  lines.push(
    `per-command bwrap − unsandboxed: true ${signed(boxTrue - plainTrue)} ms (${
      (boxTrue / plainTrue).toFixed(2)
    }×), echo hi ${signed(boxEcho - plainEcho)} ms (${(boxEcho / plainEcho).toFixed(2)}×)`,
  );
  lines.push(
    `session sandbox without the command guard − unsandboxed: true ${
      signed(bareTrue - plainTrue)
    } ms (${(bareTrue / plainTrue).toFixed(2)}×)`,
  );
  lines.push(
    `session sandbox − unsandboxed: true ${signed(poolTrue - plainTrue)} ms (${
      (poolTrue / plainTrue).toFixed(2)
    }×), echo hi ${signed(poolEcho - plainEcho)} ms (${
      (poolEcho / plainEcho).toFixed(2)
    }×) (target ≤ +5 ms) ${worst <= 5 ? "OK" : "OVER"}${
      root0 ? " [as root: cgroup step included]" : ""
    }`,
  );
  if (before) {
    const pairs: [string, string][] = [
      ["pooled sandbox `true`", "pooled sandbox `true` [before tree]"],
      ["  guard before + after", "  guard before + after [before tree]"],
      ["  prepare (bwrap argv)", "  prepare (bwrap argv) [before tree]"],
    ];
    for (const [now, then] of pairs) {
      lines.push(
        `${now.trim()}: this tree − before tree ${(at(now) - at(then)).toFixed(2)} ms (${
          (at(now) / at(then)).toFixed(2)
        }×)`,
      );
    }
  }
  lines.push(`${rounds} interleaved rounds, medians; load average ${Deno.loadavg().join(", ")}`);
  return lines;
}

/**
 * The before-tree's session launcher, guard and `prepare`, as phases of the
 * same rounds; null without SKIFF_BENCH_BEFORE.
 */
async function beforeTree(ws: string, settings: SandboxSettings, shell: string) {
  const tree = Deno.env.get("SKIFF_BENCH_BEFORE");
  if (!tree) return null;
  const root = path.resolve(tree);
  const guardModule = await import(path.join(root, "src/sandbox/guard/command_guard.ts"));
  const bwrapModule = await import(path.join(root, "src/sandbox/bwrap/bwrap.ts"));
  const sessionModule = await import(path.join(root, "src/sandbox/bwrap/session.ts"));
  const guard = new guardModule.CommandGuard({ roots: [ws] });
  const perCommand: ProcessLauncher = bwrapModule.bwrapLauncher(settings, { shell });
  const pooled = sessionModule.bwrapSessionLauncher(settings, { shell }, guard);
  const phases: [string, () => Promise<unknown> | unknown][] = [
    ["pooled sandbox `true` [before tree]", () => runLikeBash(pooled, "true", ws)],
    ["  guard before + after [before tree]", () => guard.before()()],
    [
      "  prepare (bwrap argv) [before tree]",
      () => perCommand.prepare("true", ws, { lifeline: true }),
    ],
  ];
  return { phases, close: () => pooled.close() as Promise<void> };
}

if (import.meta.main) {
  for (const line of await benchSandbox()) console.log(line);
}
