/**
 * The exec step of the Landlock backend, run as its own short process through
 * skiff's hidden subcommand `__landlock-exec <plan> <program> <args…>`
 * (main.ts dispatches it before importing anything else; the argv is built
 * by landlockExecArgv in sandbox/landlock/launcher.ts). It makes
 * the command's private temp folder, leaves the terminal session, drops
 * every capability (root keeps none, and cannot regain them on exec),
 * restricts itself with the plan and `no_new_privs`, installs the plan's
 * seccomp filter (seccomp.ts: no limits of other processes, no keyrings, no
 * set-id bits, no UDP with the network off), and then replaces
 * itself with the command through execve: the command and everything it
 * starts live in the Landlock domain and can never widen it. This is the
 * only place the launcher uses FFI. On failure it exits 126 with the reason
 * on stderr, never running the command unrestricted.
 */
import {
  address,
  restrictThisThread,
  type SyscallCaller,
  type Syscalls,
  withSyscalls,
} from "./landlock.ts";
import { readRules } from "./read_rules.ts";
import type { LandlockPlan } from "./plan.ts";

const PR_CAPBSET_DROP = 24n;
const PR_CAP_AMBIENT = 47n;
const PR_CAP_AMBIENT_CLEAR_ALL = 4n;
const PR_SET_CHILD_SUBREAPER = 36n;
const CAP_VERSION_3 = 0x20080522;
const SIGPIPE = 13n;

function fail(reason: string, code = 126): never {
  console.error(`skiff: the Landlock sandbox could not start the command: ${reason}`);
  Deno.exit(code);
}

const ESRCH = 3;

/**
 * Whether process `pid` is gone, asked of the kernel (`kill(pid, 0)`: only
 * "no such process" counts). Not of /proc: Deno refuses `/proc/<pid>` to
 * this step, which has no `--allow-all`, and a refusal taken for "gone"
 * removed the folders of every live session. Anything else, or no answer,
 * is "not gone".
 */
export function processGone(pid: number, call: SyscallCaller, numbers: Syscalls): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  const { value, errno } = call(numbers.kill, BigInt(pid), 0n);
  return value < 0n && errno === ESRCH;
}

/**
 * Removes the temp folders (and holder copies) under `root` of commands
 * whose process is gone; a folder whose process cannot be told gone stays.
 */
export function sweepTempFolders(
  root: string,
  gone: (pid: number) => boolean,
  self: number = Deno.pid,
): string[] {
  const removed: string[] = [];
  for (const entry of Deno.readDirSync(root)) {
    const match = /^skiff-landlock-(\d+)(?:\.holder)?$/.exec(entry.name);
    if (!match || Number(match[1]) === self || !gone(Number(match[1]))) continue;
    try {
      Deno.removeSync(`${root}/${entry.name}`, { recursive: true });
      removed.push(entry.name);
    } catch { /* another user's, or in use */ }
  }
  return removed;
}

/**
 * A copy of `program` at `target` that its user may run but not read (mode
 * 0111): a process that runs it is not dumpable (the capabilities that
 * would read it anyway are dropped before the exec). Made new (never
 * through an entry someone left there) and, once run, kept until the sweep
 * finds its process gone.
 */
function holderCopy(program: string, target: string): string {
  if (!program.startsWith("/")) fail(`the holder's shell must be an absolute path: ${program}`);
  try {
    Deno.removeSync(target);
  } catch { /* not there */ }
  try {
    const bytes = Deno.readFileSync(program);
    const file = Deno.openSync(target, { write: true, createNew: true, mode: 0o700 });
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    } finally {
      file.close();
    }
    Deno.chmodSync(target, 0o111);
  } catch (error) {
    fail(`could not copy ${program} to ${target} (${(error as Error).message})`);
  }
  return target;
}

/**
 * `program`, or `fallback` when `program` is a multi-call binary (busybox,
 * toybox): such a binary runs what its name says, and the holder's copy has
 * another name.
 */
export function holderProgram(program: string, fallback?: string): string {
  let real = program;
  try {
    real = Deno.realPathSync(program);
  } catch { /* copied as named; the copy says why it fails */ }
  const name = real.slice(real.lastIndexOf("/") + 1);
  return fallback && (name === "busybox" || name === "toybox") ? fallback : program;
}

const PR_SET_SECCOMP = 22n;
const SECCOMP_MODE_FILTER = 2n;

/**
 * Installs the plan's seccomp program (built by seccomp.ts) with this
 * process's pid written in; the caller has set no_new_privs. Returns why
 * it could not: a plan without one is refused, never run unfiltered.
 */
function installFilter(plan: LandlockPlan, call: SyscallCaller, numbers: Syscalls): string | null {
  const hex = plan.seccomp ?? "";
  const at = plan.seccompPidAt ?? -1;
  if (!hex || hex.length % 16 !== 0 || at < 0 || at + 4 > hex.length / 2) {
    return `the plan has no seccomp filter for ${Deno.build.arch}`;
  }
  const program = new Uint8Array(hex.length / 2);
  for (let index = 0; index < program.length; index++) {
    program[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  }
  new DataView(program.buffer).setUint32(at, Deno.pid, true);
  // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
  const fprog = new BigUint64Array([BigInt(program.length / 8), address(program)]);
  const installed = call(numbers.prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, address(fprog));
  return installed.value < 0n ? `seccomp filter refused (errno ${installed.errno})` : null;
}

function cString(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(new TextEncoder().encode(`${text}\0`));
}

/** The hidden subcommand's entry (main.ts): never returns; the command replaces this process. */
export function runStep(stepArgs: string[]): never {
  const [planText, program, ...args] = stepArgs;
  if (!planText || !program) fail("usage: skiff __landlock-exec <plan> <program> [args…]", 2);
  const plan = JSON.parse(planText) as LandlockPlan & { probe?: boolean };
  const tempDir = `${plan.tempRoot ?? "/tmp"}/skiff-landlock-${Deno.pid}`;
  // A stale entry of the same name (a reused pid, or a link someone planted) goes first: the
  // folder granted to the command must be one this step made, never a link to elsewhere.
  try {
    Deno.removeSync(tempDir, { recursive: true });
  } catch { /* not there */ }
  try {
    Deno.mkdirSync(tempDir, { mode: 0o700 });
  } catch (error) {
    fail(`could not make ${tempDir} (${(error as Error).message})`);
  }
  const executable = plan.holder
    ? holderCopy(holderProgram(program, plan.holderFallback), `${tempDir}.holder`)
    : program;
  const env: Record<string, string> = { ...Deno.env.toObject(), TMPDIR: tempDir };
  for (const name of (env.SKIFF_LANDLOCK_STEP_ENV ?? "").split(",")) delete env[name];
  delete env.SKIFF_LANDLOCK_STEP_ENV;
  const dropped = withSyscalls((call, numbers) => {
    // Other commands' leftovers first, with the same syscall caller (this step's own folder is
    // never one of them).
    try {
      sweepTempFolders(plan.tempRoot ?? "/tmp", (pid) => processGone(pid, call, numbers));
    } catch { /* best effort */ }
    call(numbers.setsid); // fails harmlessly when already a group leader
    // Without CAP_SETPCAP (not root) the bounding set cannot shrink, and has nothing to lose.
    for (let cap = 0n; cap < 64n; cap++) call(numbers.prctl, PR_CAPBSET_DROP, cap);
    call(numbers.prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0n, 0n, 0n);
    // The holder: what its commands leave behind becomes its child (kept across the exec).
    if (plan.holder && call(numbers.prctl, PR_SET_CHILD_SUBREAPER, 1n).value < 0n) return false;
    return true;
  });
  if (typeof dropped === "object") fail(dropped.unavailable);
  if (!dropped) fail("the holder could not be made a child subreaper");
  const restricted = restrictThisThread({
    handled: BigInt(plan.handled),
    handledNet: plan.handledNet === undefined ? undefined : BigInt(plan.handledNet),
    scoped: plan.scoped === undefined ? undefined : BigInt(plan.scoped),
    rules: [
      ...readRules(plan.hidden),
      ...plan.rules.map(([target, access]): [string, bigint] => [target, BigInt(access)]),
      [tempDir, BigInt(plan.tempAccess)] as [string, bigint],
    ].map(([target, access]) => ({ path: target, access })),
  });
  if (restricted.kind !== "restricted") fail(restricted.reason);
  if (plan.probe) console.log(`landlock-abi=${restricted.abi}`);
  else if (plan.abi !== restricted.abi) {
    fail(
      `its rules were made for Landlock ABI ${plan.abi}, but this kernel has ABI ` +
        `${restricted.abi}; run \`skiff doctor\` to probe again`,
    );
  }
  const outcome = withSyscalls((call, numbers) => {
    // After the restriction, which set no_new_privs: no foreign prlimit, no keyrings, no
    // set-id bits, and with the network off no UDP (seccomp.ts).
    const filtered = installFilter(plan, call, numbers);
    if (filtered) return filtered;
    const header = new Uint32Array([CAP_VERSION_3, 0]);
    const data = new Uint32Array(6);
    const capset = call(numbers.capset, address(header), address(data));
    if (capset.value < 0n) return `capset failed (errno ${capset.errno})`;
    // Deno ignores SIGPIPE, and an ignored signal stays ignored across execve: the command
    // gets the default back, as a command started by skiff directly does (`yes | head` ends
    // quietly). A zeroed `struct sigaction` is SIG_DFL, no flags, an empty mask.
    const defaults = new BigUint64Array(4);
    const reset = call(numbers.rtSigaction, SIGPIPE, address(defaults), 0n, 8n);
    if (reset.value < 0n) return `rt_sigaction failed (errno ${reset.errno})`;
    const strings = [executable, ...args].map(cString);
    const envStrings = Object.entries(env).map(([name, value]) => cString(`${name}=${value}`));
    const argv = new BigUint64Array([...strings.map(address), 0n]);
    const envp = new BigUint64Array([...envStrings.map(address), 0n]);
    const executed = call(numbers.execve, address(strings[0]), address(argv), address(envp));
    return `execve ${executable} failed (errno ${executed.errno})`;
  });
  fail(typeof outcome === "string" ? outcome : outcome.unavailable, 127);
}
