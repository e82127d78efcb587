/**
 * The message between the Landlock launcher (sandbox/landlock/rules.ts builds it)
 * and its exec step (sandbox/landlock/exec.ts applies it). A file of its own, with
 * no imports, so the step's module graph stays free of what the launcher
 * side loads.
 */

/** A ruleset as the launcher passes it to its exec step: rights as decimal strings. */
export interface LandlockPlan {
  /**
   * The kernel ABI the rights were chosen for (from the probe, possibly
   * cached). The exec step refuses a plan made for another ABI than the
   * kernel's: one made for an older ABI would leave rights unhandled.
   */
  abi: number;
  handled: string;
  /** Rights on the command's private temp folder, which the exec step makes. */
  tempAccess: string;
  /** Where that folder is made (`skiff-landlock-<pid>`). @default "/tmp" */
  tempRoot?: string;
  /**
   * The session's holder (sandbox/landlock/pool_steps.ts): the program (a shell,
   * absolute) is run from a copy its user cannot read, made beside the temp
   * folder (`skiff-landlock-<pid>.holder`), so the process is not dumpable.
   */
  holder?: boolean;
  /**
   * The holder's program when the one named is a multi-call binary (busybox,
   * toybox: they run what their name says, and the copy has another name):
   * the command shell.
   */
  holderFallback?: string;
  /**
   * Paths left unreadable. The exec step turns them into read rules itself
   * (`readRules`, sandbox/landlock/read_rules.ts): listing `/` needs a read
   * permission the engine lacks.
   */
  hidden: string[];
  handledNet?: string;
  /**
   * The seccomp filter the step installs after the restriction (seccomp.ts,
   * which judges the network too): the program as hex, and the byte offset
   * where the step writes its own pid. A plan without one is refused.
   */
  seccomp?: string;
  seccompPidAt?: number;
  scoped?: string;
  rules: [string, string][];
}
