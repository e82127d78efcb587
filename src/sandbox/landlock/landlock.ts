/**
 * Landlock (Linux ≥ 5.13) through Deno's FFI: the kernel checks every file
 * access of a restricted thread against the real path it reaches, after
 * symlinks, so a folder swapped for a link between a check and a write
 * cannot carry the write out. A restriction covers the calling thread and
 * the threads and processes it starts later, never the rest of the process,
 * and it cannot be lifted. Deno runs synchronous file calls on the calling
 * thread; asynchronous ones may run on pool threads started before the
 * restriction, which it does not cover, so restricted code must use the
 * synchronous calls. Restricted threads also cannot mount (bubblewrap would
 * fail), so the restriction belongs on a thread that starts no commands.
 * Needs `--allow-ffi` (for libc) at the moment of the call only.
 */

/** Filesystem access rights (`LANDLOCK_ACCESS_FS_*`); later ABIs add rights. */
export const FsAccess = {
  execute: 1n << 0n,
  writeFile: 1n << 1n,
  readFile: 1n << 2n,
  readDir: 1n << 3n,
  removeDir: 1n << 4n,
  removeFile: 1n << 5n,
  makeChar: 1n << 6n,
  makeDir: 1n << 7n,
  makeReg: 1n << 8n,
  makeSock: 1n << 9n,
  makeFifo: 1n << 10n,
  makeBlock: 1n << 11n,
  makeSym: 1n << 12n,
  /** ABI 2: link or rename into another folder. */
  refer: 1n << 13n,
  /** ABI 3: truncate a file. */
  truncate: 1n << 14n,
} as const;

/** Every right that changes the filesystem, as far as `abi` knows them. */
export function writeRights(abi: number): bigint {
  let rights = FsAccess.writeFile | FsAccess.removeDir | FsAccess.removeFile |
    FsAccess.makeChar | FsAccess.makeDir | FsAccess.makeReg | FsAccess.makeSock |
    FsAccess.makeFifo | FsAccess.makeBlock | FsAccess.makeSym;
  if (abi >= 2) rights |= FsAccess.refer;
  if (abi >= 3) rights |= FsAccess.truncate;
  return rights;
}

export interface LandlockRule {
  /** A folder (or file); it must exist. */
  path: string;
  /** Rights granted beneath it; must be among the ruleset's `handled`. */
  access: bigint;
}

export interface LandlockRuleset {
  /** Rights the kernel will check; rights not listed stay unrestricted. */
  handled: bigint;
  rules: LandlockRule[];
  /** ABI 4: network rights checked (`NetAccess`); with no net rule, all of them are denied. */
  handledNet?: bigint;
  /** ABI 6: IPC scopes (`Scope`): nothing outside the domain can be reached that way. */
  scoped?: bigint;
}

/** Network rights (`LANDLOCK_ACCESS_NET_*`, ABI 4). */
export const NetAccess = { bindTcp: 1n << 0n, connectTcp: 1n << 1n } as const;

/** IPC scopes (`LANDLOCK_SCOPE_*`, ABI 6). */
export const Scope = { abstractUnixSocket: 1n << 0n, signal: 1n << 1n } as const;

export type LandlockResult =
  | { kind: "restricted"; abi: number; skipped: string[] }
  | { kind: "unavailable"; reason: string };

export interface Syscalls {
  landlockCreateRuleset: bigint;
  landlockAddRule: bigint;
  landlockRestrictSelf: bigint;
  openat: bigint;
  close: bigint;
  prctl: bigint;
  setsid: bigint;
  capset: bigint;
  execve: bigint;
  rtSigaction: bigint;
  kill: bigint;
}

// landlock_* share one number on every architecture; the rest do not.
const SYSCALLS: Partial<Record<typeof Deno.build.arch, Syscalls>> = {
  x86_64: {
    landlockCreateRuleset: 444n,
    landlockAddRule: 445n,
    landlockRestrictSelf: 446n,
    openat: 257n,
    close: 3n,
    prctl: 157n,
    setsid: 112n,
    capset: 126n,
    execve: 59n,
    rtSigaction: 13n,
    kill: 62n,
  },
  aarch64: {
    landlockCreateRuleset: 444n,
    landlockAddRule: 445n,
    landlockRestrictSelf: 446n,
    openat: 56n,
    close: 57n,
    prctl: 167n,
    setsid: 157n,
    capset: 91n,
    execve: 221n,
    rtSigaction: 134n,
    kill: 129n,
  },
};

const CREATE_RULESET_VERSION = 1n;
const RULE_PATH_BENEATH = 1n;
const PR_SET_NO_NEW_PRIVS = 38n;
const AT_FDCWD = -100n;
const O_PATH = 0x200000n;
const O_CLOEXEC = 0x80000n;

const LIBC_SYMBOLS = {
  syscall: {
    parameters: ["i64", "i64", "i64", "i64", "i64", "i64"],
    result: "i64",
  },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof LIBC_SYMBOLS>;

/** A raw syscall: its return value and, when negative, errno. */
export type SyscallCaller = (number: bigint, ...args: bigint[]) => { value: bigint; errno: number };

/**
 * Runs `work` with a raw syscall caller and this machine's syscall numbers,
 * or returns why it cannot. Needs `--allow-ffi`.
 */
export function withSyscalls<T>(
  work: (call: SyscallCaller, numbers: Syscalls) => T,
): T | { unavailable: string } {
  if (Deno.build.os !== "linux") return { unavailable: `Linux only (this is ${Deno.build.os})` };
  const numbers = SYSCALLS[Deno.build.arch];
  if (!numbers) return { unavailable: `no syscall table for ${Deno.build.arch}` };
  const libc = openLibc();
  if (typeof libc === "string") return { unavailable: libc };
  try {
    return work(caller(libc), numbers);
  } finally {
    libc.close();
  }
}

function openLibc(): Libc | string {
  let lastError = "";
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      return Deno.dlopen(name, LIBC_SYMBOLS);
    } catch (error) {
      lastError = (error as Error).message;
    }
  }
  return `libc could not be loaded (${lastError})`;
}

/** A raw syscall and its errno, on one loaded libc. */
function caller(libc: Libc) {
  return (number: bigint, ...args: bigint[]): { value: bigint; errno: number } => {
    const padded = [...args, 0n, 0n, 0n, 0n, 0n].slice(0, 5) as [
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
    ];
    const value = libc.symbols.syscall(number, ...padded) as bigint;
    const where = libc.symbols.__errno_location();
    const errno = value < 0n && where ? new Deno.UnsafePointerView(where).getInt32() : 0;
    return { value, errno };
  };
}

/** The address of `buffer`, for a syscall argument; keep `buffer` alive across the call. */
export function address(buffer: BufferSource): bigint {
  const view = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : buffer;
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(view as Uint8Array)));
}

/** The kernel's Landlock ABI version, or why there is none. Needs `--allow-ffi`. */
export function landlockAbi(): number | string {
  if (Deno.build.os !== "linux") return `Landlock is Linux only (this is ${Deno.build.os})`;
  const numbers = SYSCALLS[Deno.build.arch];
  if (!numbers) return `no Landlock syscall table for ${Deno.build.arch}`;
  const libc = openLibc();
  if (typeof libc === "string") return libc;
  try {
    return probe(caller(libc), numbers);
  } finally {
    libc.close();
  }
}

function probe(call: ReturnType<typeof caller>, numbers: Syscalls): number | string {
  const { value, errno } = call(numbers.landlockCreateRuleset, 0n, 0n, CREATE_RULESET_VERSION);
  if (value > 0n) return Number(value);
  return errno === 38 // ENOSYS
    ? "the kernel has no Landlock (older than 5.13)"
    : `Landlock is disabled in this kernel (errno ${errno}; add landlock to lsm= at boot)`;
}

/**
 * Restrict the calling thread, and every thread and process it starts from
 * now on, to `ruleset`. Rules whose path does not exist are skipped and
 * named. Irreversible. Needs `--allow-ffi`; the permission may be revoked
 * right after.
 */
export function restrictThisThread(ruleset: LandlockRuleset): LandlockResult {
  if (Deno.build.os !== "linux") {
    return { kind: "unavailable", reason: `Landlock is Linux only (this is ${Deno.build.os})` };
  }
  const numbers = SYSCALLS[Deno.build.arch];
  if (!numbers) return { kind: "unavailable", reason: `no syscall table for ${Deno.build.arch}` };
  const libc = openLibc();
  if (typeof libc === "string") return { kind: "unavailable", reason: libc };
  const call = caller(libc);
  const opened: bigint[] = [];
  try {
    const abi = probe(call, numbers);
    if (typeof abi === "string") return { kind: "unavailable", reason: abi };
    // struct landlock_ruleset_attr grew with the ABI: pass only the fields used.
    const fields = ruleset.scoped !== undefined
      ? [ruleset.handled, ruleset.handledNet ?? 0n, ruleset.scoped]
      : ruleset.handledNet !== undefined
      ? [ruleset.handled, ruleset.handledNet]
      : [ruleset.handled];
    const attr = new BigUint64Array(fields);
    const rulesetFd = call(
      numbers.landlockCreateRuleset,
      address(attr),
      BigInt(attr.byteLength),
      0n,
    );
    if (rulesetFd.value < 0n) {
      return {
        kind: "unavailable",
        reason: `landlock_create_ruleset failed (errno ${rulesetFd.errno})`,
      };
    }
    opened.push(rulesetFd.value);
    const skipped: string[] = [];
    for (const rule of ruleset.rules) {
      const name = new TextEncoder().encode(`${rule.path}\0`);
      const fd = call(numbers.openat, AT_FDCWD, address(name), O_PATH | O_CLOEXEC);
      if (fd.value < 0n) {
        skipped.push(rule.path);
        continue;
      }
      opened.push(fd.value);
      // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } (packed)
      const beneath = new DataView(new ArrayBuffer(12));
      beneath.setBigUint64(0, rule.access & ruleset.handled, true);
      beneath.setInt32(8, Number(fd.value), true);
      const added = call(
        numbers.landlockAddRule,
        rulesetFd.value,
        RULE_PATH_BENEATH,
        address(beneath.buffer),
        0n,
      );
      if (added.value < 0n) {
        return {
          kind: "unavailable",
          reason: `landlock_add_rule failed for ${rule.path} (errno ${added.errno})`,
        };
      }
    }
    // Required of a thread without CAP_SYS_ADMIN; it only stops setuid gains.
    const noNewPrivs = call(numbers.prctl, PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n);
    if (noNewPrivs.value < 0n) {
      return {
        kind: "unavailable",
        reason: `prctl(NO_NEW_PRIVS) failed (errno ${noNewPrivs.errno})`,
      };
    }
    const restricted = call(numbers.landlockRestrictSelf, rulesetFd.value, 0n);
    if (restricted.value < 0n) {
      return {
        kind: "unavailable",
        reason: `landlock_restrict_self failed (errno ${restricted.errno})`,
      };
    }
    return { kind: "restricted", abi, skipped };
  } finally {
    for (const fd of opened) call(numbers.close, fd);
    libc.close();
  }
}

/**
 * Restrict the calling thread so it may change the filesystem only beneath
 * `writable` (reading stays as it was). Needs `--allow-ffi`.
 */
export function restrictWritesTo(writable: string[]): LandlockResult {
  const abi = landlockAbi();
  if (typeof abi === "string") return { kind: "unavailable", reason: abi };
  const rights = writeRights(abi);
  return restrictThisThread({
    handled: rights,
    rules: writable.map((path) => ({ path, access: rights })),
  });
}
