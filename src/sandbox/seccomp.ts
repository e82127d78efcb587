/**
 * The seccomp filter of the Landlock backend's exec step (landlock_exec.ts):
 * what Landlock has no right for and a filter can judge from the syscall's
 * number and plain arguments. Without a pid namespace a command sees every
 * process of its user, and `prlimit --pid <skiff> --fsize=0 --as=…` killed
 * skiff mid-command (and any other process of the user, every process as
 * root); the kernel keyrings (`keyctl`, `add_key`, `request_key`) read the
 * user's `@u` keyring. So the filter fails with EPERM:
 *
 * - `prlimit64` that sets a limit of another process: a nonzero pid that is
 *   not `ownPid` (the exec step's own, which the command's shell keeps
 *   across `execve`: `prlimit --nproc=… --pid $$`). Reading a limit stays
 *   allowed, and so does every change of the caller's own: `setrlimit`,
 *   bash's `ulimit` and `prlimit <command>` pass pid 0;
 * - every keyring call.
 *
 * A filter cannot read a path argument (it sees only the pointer), so it
 * cannot tell `chmod ~/.ssh/id_rsa` from a chmod in the workspace: that gap
 * is in docs/security.md. The filter needs `no_new_privs`, which the
 * Landlock restriction sets first, and, like it, holds for the command and
 * everything it starts, and cannot be removed.
 */
import { address, withSyscalls } from "./landlock.ts";

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
/** x32 syscalls are the x86_64 numbers with this bit set. */
const X32_BIT = 0x40000000;

const PR_SET_SECCOMP = 22n;
const SECCOMP_MODE_FILTER = 2n;

/** The numbers the filter judges, for one syscall ABI. */
interface FilteredCalls {
  /** `AUDIT_ARCH_*` of the ABI. */
  arch: number;
  prlimit64: number;
  keyring: number[];
}

/**
 * Each architecture's native ABI and the 32-bit one its kernel may also
 * run (a 32-bit program makes its calls under other numbers).
 */
const ABIS: Partial<Record<typeof Deno.build.arch, FilteredCalls[]>> = {
  x86_64: [
    { arch: 0xc000003e, prlimit64: 302, keyring: [248, 249, 250] },
    { arch: 0x40000003, prlimit64: 340, keyring: [286, 287, 288] },
  ],
  aarch64: [
    { arch: 0xc00000b7, prlimit64: 261, keyring: [217, 218, 219] },
    { arch: 0x40000028, prlimit64: 369, keyring: [309, 310, 311] },
  ],
};

interface Instruction {
  code: number;
  k: number;
  /** Labels (or 0 for the next instruction) where a jump goes when true and false. */
  yes?: string;
  no?: string;
  label?: string;
}

/**
 * The filter's program for `machine`, as `struct sock_filter` entries
 * (code u16, jt u8, jf u8, k u32), or null where there is no table.
 * `ownPid` is the pid the command's first process keeps.
 */
export function commandFilter(machine: typeof Deno.build.arch, ownPid: number): Uint8Array | null {
  const abis = ABIS[machine];
  if (!abis) return null;
  const program: Instruction[] = [{ code: LD_W_ABS, k: ARCH }];
  abis.forEach((abi, index) => {
    program.push({ code: JEQ_K, k: abi.arch, yes: `abi${index}` });
  });
  // An ABI not listed (none the kernel runs here): nothing to judge.
  program.push({ code: RET_K, k: RET_ALLOW });
  abis.forEach((abi, index) => {
    program.push({ code: LD_W_ABS, k: NR, label: `abi${index}` });
    // x32 shares the x86_64 audit arch: judged by the same numbers.
    if (index === 0 && machine === "x86_64") program.push({ code: AND_K, k: ~X32_BIT >>> 0 });
    for (const call of abi.keyring) program.push({ code: JEQ_K, k: call, yes: "deny" });
    program.push({ code: JEQ_K, k: abi.prlimit64, yes: "prlimit", no: "allow" });
  });
  program.push(
    // prlimit64(pid, resource, new_limit, old_limit)
    { code: LD_W_ABS, k: argLow(0), label: "prlimit" },
    { code: JEQ_K, k: 0, yes: "allow" },
    { code: JEQ_K, k: ownPid >>> 0, yes: "allow" },
    { code: LD_W_ABS, k: argLow(2) },
    { code: JEQ_K, k: 0, no: "deny" },
    { code: LD_W_ABS, k: argHigh(2) },
    { code: JEQ_K, k: 0, yes: "allow", no: "deny" },
    { code: RET_K, k: RET_ALLOW, label: "allow" },
    { code: RET_K, k: RET_EPERM, label: "deny" },
  );
  const at = new Map(program.flatMap((entry, index) => entry.label ? [[entry.label, index]] : []));
  const bytes = new DataView(new ArrayBuffer(program.length * 8));
  program.forEach((entry, index) => {
    const jump = (label?: string) => {
      if (!label) return 0;
      const offset = at.get(label)! - index - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp jump out of range: ${label}`);
      return offset;
    };
    bytes.setUint16(index * 8, entry.code, true);
    bytes.setUint8(index * 8 + 2, jump(entry.yes));
    bytes.setUint8(index * 8 + 3, jump(entry.no));
    bytes.setUint32(index * 8 + 4, entry.k, true);
  });
  return new Uint8Array(bytes.buffer);
}

/**
 * Installs `commandFilter` on the calling thread (kept across `execve`,
 * inherited by every child). Needs `--allow-ffi` and `no_new_privs` set
 * before. Returns why it could not.
 */
export function installCommandFilter(ownPid: number = Deno.pid): string | null {
  const program = commandFilter(Deno.build.arch, ownPid);
  if (!program) return `no seccomp table for ${Deno.build.arch}`;
  const outcome = withSyscalls((call, numbers) => {
    // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
    const fprog = new BigUint64Array([BigInt(program.length / 8), address(program)]);
    const installed = call(numbers.prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, address(fprog));
    return installed.value < 0n ? `seccomp filter refused (errno ${installed.errno})` : null;
  });
  return outcome !== null && typeof outcome === "object" ? outcome.unavailable : outcome;
}
