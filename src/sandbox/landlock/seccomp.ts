/**
 * The seccomp filter of the Landlock backend's exec step, built with each
 * plan (sandbox/landlock/rules.ts) and installed by the step (sandbox/landlock/exec.ts):
 * what Landlock has no right for and a filter can judge from the syscall's
 * number and plain arguments. Without a pid namespace a command sees every
 * process of its user, and `prlimit --pid <skiff> --fsize=0 --as=…` killed
 * skiff mid-command (and any other process of the user, every process as
 * root); the kernel keyrings (`keyctl`, `add_key`, `request_key`) read the
 * user's `@u` keyring. So the filter fails with EPERM:
 *
 * - `prlimit64` that sets a limit of another process: a nonzero pid that is
 *   not the exec step's own (which the command's shell keeps
 *   across `execve`: `prlimit --nproc=… --pid $$`). Reading a limit stays
 *   allowed, and so does every change of the caller's own: `setrlimit`,
 *   bash's `ulimit` and `prlimit <command>` pass pid 0;
 * - every keyring call;
 * - a set-user/group-id bit (chmod family, creating opens);
 * - with the network off, an internet socket Landlock does not judge: UDP
 *   and every non-TCP protocol (all of them below ABI 4).
 *
 * A filter cannot read a path argument (it sees only the pointer), so it
 * cannot tell `chmod ~/.ssh/id_rsa` from a chmod in the workspace: that gap
 * is in docs/security.md. The filter needs `no_new_privs`, which the
 * Landlock restriction sets first, and, like it, holds for the command and
 * everything it starts, and cannot be removed. Built on the launcher's side
 * so the step, started per command, loads and builds nothing more.
 */

/** `struct seccomp_data`: nr (u32), arch (u32), instruction pointer (u64), args[6] (u64 each). */
const NR = 0;
const ARCH = 4;
const argLow = (index: number) => 16 + 8 * index;
const argHigh = (index: number) => 20 + 8 * index;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const AND_K = 0x54;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_ENOSYS = 0x00050000 | 38;
/** x32 syscalls are the x86_64 numbers with this bit set. */
const X32_BIT = 0x40000000;

/**
 * What the filter does with one call: refuse it (EPERM), report it missing
 * (ENOSYS: callers fall back to a call the filter can judge), judge
 * prlimit64's pid, refuse a set-user/group-id bit in the mode argument at
 * `mode`, or do so only when the flags at `flags` create a file.
 */
type Rule =
  | "deny"
  | "missing"
  | "prlimit"
  | { mode: number }
  | { create: number; mode: number };

/** The numbers the filter judges, for one syscall ABI. */
interface FilteredCalls {
  /** `AUDIT_ARCH_*` of the ABI. */
  arch: number;
  calls: [number, Rule][];
  /** `socket`, judged when the network is off; and `socketcall`, whose arguments it cannot read. */
  socket: number;
  socketcall?: number;
}

/**
 * The network the command has: all of it; TCP only, whose bind and
 * connect Landlock judges (ABI 4 and later, network off); or none (network
 * off below ABI 4, where Landlock judges nothing).
 */
export type FilterNetwork = "open" | "tcp" | "none";

const KEYRING: Rule = "deny";
/** openat2 passes its mode in a struct the filter cannot read; io_uring opens without syscalls. */
const UNREADABLE: Rule = "missing";

/**
 * Each architecture's native ABI and the 32-bit one its kernel may also
 * run (a 32-bit program makes its calls under other numbers). Per ABI:
 * keyctl/add_key/request_key, prlimit64, the chmod family (chmod, fchmod,
 * fchmodat, fchmodat2), the creating calls (open, creat, openat, mknod,
 * mknodat), openat2 and io_uring_setup; `socket` (and i386's `socketcall`).
 */
const ABIS: Partial<Record<typeof Deno.build.arch, FilteredCalls[]>> = {
  x86_64: [{
    arch: 0xc000003e,
    calls: [
      [248, KEYRING],
      [249, KEYRING],
      [250, KEYRING],
      [302, "prlimit"],
      [90, { mode: 1 }],
      [91, { mode: 1 }],
      [268, { mode: 2 }],
      [452, { mode: 2 }],
      [2, { create: 1, mode: 2 }],
      [85, { mode: 1 }],
      [257, { create: 2, mode: 3 }],
      [133, { mode: 1 }],
      [259, { mode: 2 }],
      [437, UNREADABLE],
      [425, UNREADABLE],
    ],
    socket: 41,
  }, {
    arch: 0x40000003,
    calls: [
      [286, KEYRING],
      [287, KEYRING],
      [288, KEYRING],
      [340, "prlimit"],
      [15, { mode: 1 }],
      [94, { mode: 1 }],
      [306, { mode: 2 }],
      [452, { mode: 2 }],
      [5, { create: 1, mode: 2 }],
      [8, { mode: 1 }],
      [295, { create: 2, mode: 3 }],
      [14, { mode: 1 }],
      [297, { mode: 2 }],
      [437, UNREADABLE],
      [425, UNREADABLE],
    ],
    socket: 359,
    socketcall: 102,
  }],
  aarch64: [{
    arch: 0xc00000b7,
    calls: [
      [217, KEYRING],
      [218, KEYRING],
      [219, KEYRING],
      [261, "prlimit"],
      [52, { mode: 1 }],
      [53, { mode: 2 }],
      [452, { mode: 2 }],
      [56, { create: 2, mode: 3 }],
      [33, { mode: 2 }],
      [437, UNREADABLE],
      [425, UNREADABLE],
    ],
    socket: 198,
  }, {
    arch: 0x40000028,
    calls: [
      [309, KEYRING],
      [310, KEYRING],
      [311, KEYRING],
      [369, "prlimit"],
      [15, { mode: 1 }],
      [94, { mode: 1 }],
      [306, { mode: 2 }],
      [452, { mode: 2 }],
      [5, { create: 1, mode: 2 }],
      [8, { mode: 1 }],
      [322, { create: 2, mode: 3 }],
      [14, { mode: 1 }],
      [324, { mode: 2 }],
      [437, UNREADABLE],
      [425, UNREADABLE],
    ],
    socket: 281,
  }],
};

const AF_INET = 2;
const AF_INET6 = 10;
const SOCK_STREAM = 1;
/** The socket type without SOCK_NONBLOCK and SOCK_CLOEXEC. */
const SOCK_TYPE_MASK = 0xf;
const IPPROTO_TCP = 6;

/** S_ISUID | S_ISGID. */
const SET_ID_BITS = 0o6000;
/** O_CREAT | __O_TMPFILE (the same on every architecture here). */
const CREATING = 0x40 | 0x400000;

interface Instruction {
  code: number;
  k: number;
  /** Labels where a jump goes when true and false (none: the next instruction). */
  yes?: string;
  no?: string;
  label?: string;
}

function ruleLabel(rule: Rule): string {
  if (typeof rule === "string") return rule;
  return "create" in rule ? `create${rule.create}:${rule.mode}` : `mode${rule.mode}`;
}

/** A built program and where the exec step writes its own pid into it. */
export interface CommandFilter {
  /** `struct sock_filter` entries: code u16, jt u8, jf u8, k u32 (little-endian). */
  program: Uint8Array<ArrayBuffer>;
  /**
   * The byte offset of the `k` that holds the pid the command's first
   * process keeps (0 until the exec step, which knows it, writes it).
   */
  pidAt: number;
}

/**
 * The filter's program for `machine`, or null where there is no table.
 * `network` is what a command may reach beyond what Landlock judges: with
 * "tcp" an internet socket other than TCP (UDP, SCTP, MPTCP) is refused,
 * with "none" every one. Built by the launcher, once per plan: the exec
 * step only writes its pid into it and installs it.
 */
export function commandFilter(
  machine: typeof Deno.build.arch,
  network: FilterNetwork = "open",
): CommandFilter | null {
  const abis = ABIS[machine];
  if (!abis) return null;
  const program: Instruction[] = [{ code: LD_W_ABS, k: ARCH }];
  abis.forEach((abi, index) => {
    program.push({ code: JEQ_K, k: abi.arch, yes: `abi${index}` });
  });
  // An ABI not listed (none the kernel runs here): nothing to judge.
  program.push({ code: RET_K, k: RET_ALLOW });
  const rules = new Map<string, Rule>();
  abis.forEach((abi, index) => {
    program.push({ code: LD_W_ABS, k: NR, label: `abi${index}` });
    // x32 shares the x86_64 audit arch: judged by the same numbers.
    if (index === 0 && machine === "x86_64") program.push({ code: AND_K, k: ~X32_BIT >>> 0 });
    for (const [call, rule] of abi.calls) {
      rules.set(ruleLabel(rule), rule);
      program.push({ code: JEQ_K, k: call, yes: ruleLabel(rule) });
    }
    if (network !== "open") {
      program.push({ code: JEQ_K, k: abi.socket, yes: "socket" });
      if (abi.socketcall) program.push({ code: JEQ_K, k: abi.socketcall, yes: "missing" });
    }
    program.push({ code: RET_K, k: RET_ALLOW });
  });
  for (const [label, rule] of rules) {
    if (typeof rule === "string") continue;
    if ("create" in rule) {
      program.push(
        { code: LD_W_ABS, k: argLow(rule.create), label },
        { code: AND_K, k: CREATING },
        { code: JEQ_K, k: 0, yes: "allow", no: `mode${rule.mode}` },
      );
      rules.set(`mode${rule.mode}`, { mode: rule.mode });
    }
  }
  for (const [label, rule] of rules) {
    if (typeof rule === "string" || "create" in rule) continue;
    program.push(
      { code: LD_W_ABS, k: argLow(rule.mode), label },
      { code: AND_K, k: SET_ID_BITS },
      { code: JEQ_K, k: 0, yes: "allow", no: "deny" },
    );
  }
  if (network !== "open") {
    program.push(
      // socket(domain, type, protocol): internet sockets; Unix and the others pass.
      { code: LD_W_ABS, k: argLow(0), label: "socket" },
      { code: JEQ_K, k: AF_INET, yes: "internet" },
      { code: JEQ_K, k: AF_INET6, yes: "internet", no: "allow" },
      network === "none"
        ? { code: RET_K, k: RET_EPERM, label: "internet" }
        : { code: LD_W_ABS, k: argLow(1), label: "internet" },
    );
    if (network === "tcp") {
      program.push(
        { code: AND_K, k: SOCK_TYPE_MASK },
        { code: JEQ_K, k: SOCK_STREAM, no: "deny" },
        { code: LD_W_ABS, k: argLow(2) },
        { code: JEQ_K, k: 0, yes: "allow" },
        { code: JEQ_K, k: IPPROTO_TCP, yes: "allow", no: "deny" },
      );
    }
  }
  program.push(
    // prlimit64(pid, resource, new_limit, old_limit)
    { code: LD_W_ABS, k: argLow(0), label: "prlimit" },
    { code: JEQ_K, k: 0, yes: "allow" },
    { code: JEQ_K, k: 0, yes: "allow", label: "own pid" },
    { code: LD_W_ABS, k: argLow(2) },
    { code: JEQ_K, k: 0, no: "deny" },
    { code: LD_W_ABS, k: argHigh(2) },
    { code: JEQ_K, k: 0, yes: "allow", no: "deny" },
    { code: RET_K, k: RET_ALLOW, label: "allow" },
    { code: RET_K, k: RET_EPERM, label: "deny" },
    { code: RET_K, k: RET_ENOSYS, label: "missing" },
  );
  const at = new Map(program.flatMap((entry, index) => entry.label ? [[entry.label, index]] : []));
  const bytes = new DataView(new ArrayBuffer(program.length * 8));
  program.forEach((entry, index) => {
    const jump = (label?: string) => {
      if (!label) return 0;
      const target = at.get(label);
      if (target === undefined) throw new Error(`seccomp label missing: ${label}`);
      const offset = target - index - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp jump out of range: ${label}`);
      return offset;
    };
    bytes.setUint16(index * 8, entry.code, true);
    bytes.setUint8(index * 8 + 2, jump(entry.yes));
    bytes.setUint8(index * 8 + 3, jump(entry.no));
    bytes.setUint32(index * 8 + 4, entry.k, true);
  });
  return { program: new Uint8Array(bytes.buffer), pidAt: at.get("own pid")! * 8 + 4 };
}

/** The plan's fields for the filter (sandbox/landlock/plan.ts), or why there is none. */
export function filterPlan(
  machine: typeof Deno.build.arch,
  network: FilterNetwork,
): { seccomp: string; seccompPidAt: number } | { unavailable: string } {
  const filter = commandFilter(machine, network);
  if (!filter) return { unavailable: `no seccomp table for ${machine}` };
  const hex = [...filter.program].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return { seccomp: hex, seccompPidAt: filter.pidAt };
}
