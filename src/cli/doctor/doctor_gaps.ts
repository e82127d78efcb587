/**
 * `skiff doctor`'s "Not covered here" lines: of the gaps docs/security.md
 * lists, the ones that apply on this machine, judged from the backend that
 * would run commands, the kernel's Landlock ABI, the user, and Yama's
 * `ptrace_scope`. Pure: the facts are gathered by doctor.ts.
 */

export interface GapFacts {
  /** The backend commands would run with (`chosenBackend`). */
  chosen: string;
  /** The kernel's Landlock ABI, 0 when Landlock does not work. */
  landlockAbi: number;
  /** The user skiff runs as; 0 is root. */
  uid: number | null;
  /** `/proc/sys/kernel/yama/ptrace_scope`, null when there is no Yama. */
  ptraceScope: number | null;
}

/** Where the backend's limits are explained, and what covers them. */
const LANDLOCK_NEXT = "bubblewrap covers these: install it and allow user namespaces " +
  '(docs/security.md, "The Landlock backend")';

export function gapLines(facts: GapFacts): string[] {
  const lines: string[] = [];
  if (facts.chosen === "landlock") {
    const abi = facts.landlockAbi;
    lines.push(
      "  - network: Unix sockets reached by path (/run's, Docker's) stay reachable" +
        (abi < 6
          ? `, and abstract ones too (Landlock ABI ${abi}; ABI 6, Linux 6.12, scopes them)`
          : ""),
      "  - chmod, utimes and extended attributes work on files outside the workspace " +
        "(~/.ssh/id_rsa included; a set-user/group-id bit is refused)",
      "  - protected paths in the workspace (.git/hooks, skiff.json…) are writable while a " +
        "command runs; the command guard puts them back when it ends",
      "  - no pid namespace: commands see every process; limits of other processes and the " +
        "keyrings are refused by skiff's seccomp filter",
      "  - a git credential in the workspace's .git/config (a CI checkout's token) is readable by " +
        "commands: the file tools refuse it, but Landlock cannot hide a file in a writable folder; " +
        "check out with persist-credentials: false",
    );
    if (abi < 6) {
      lines.push(
        `  - signals: a command can signal skiff and your other processes (Landlock ABI ${abi}; ` +
          "ABI 6, Linux 6.12, scopes them)",
      );
    }
    lines.push(`    ${LANDLOCK_NEXT}`);
  }
  // Any backend: a sandbox binds folders, and a hard link is the same file under both names.
  lines.push(
    "  - a command writes through a hard link made before the session (a package store's file " +
      "linked into node_modules) to the file outside the workspace; the file tools do not",
  );
  // Any backend: --sandbox full-access runs commands with no sandbox at all.
  const memory = facts.uid === 0
    ? "as root it can read skiff's memory (/proc/<pid>/mem) and the key in it"
    : facts.ptraceScope === null || facts.ptraceScope === 0
    ? `it can read skiff's memory (/proc/<pid>/mem) and the key in it (Yama ptrace_scope ${
      facts.ptraceScope ?? "absent"
    })`
    : `it cannot read skiff's memory (Yama ptrace_scope ${facts.ptraceScope})`;
  lines.push(
    "  - --sandbox full-access: a command runs as you; skiff's /proc/<pid>/environ no longer " +
      `shows credentials, but ${memory}; keep full-access for work you trust`,
  );
  return lines;
}

/** Yama's ptrace_scope, null where the kernel has no Yama. */
export function readPtraceScope(): number | null {
  try {
    const value = Number(Deno.readTextFileSync("/proc/sys/kernel/yama/ptrace_scope").trim());
    return Number.isInteger(value) ? value : null;
  } catch {
    return null;
  }
}
