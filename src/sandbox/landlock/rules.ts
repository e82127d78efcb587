/**
 * The Landlock ruleset for one command (src/sandbox/landlock/launcher.ts):
 * everything readable except the hidden paths, the workspace and `--add-dir`s
 * writable (not in read-only mode), one private temp folder writable, the
 * character devices a shell writes to, and with the network off every TCP
 * bind and connect denied. Landlock only grants, it cannot deny beneath a
 * grant: a hidden path is left out by granting each of its siblings instead
 * of its folder, and a protected path inside the writable workspace cannot be
 * made read-only (the command guard reverts it when the command ends).
 */
import { FsAccess, NetAccess, Scope, writeRights } from "./landlock.ts";
import { READ_RIGHTS } from "./read_rules.ts";
import type { LandlockPlan } from "./plan.ts";
import type { SandboxSettings } from "../modes.ts";
import { realpathLenient } from "../paths.ts";
import { filterPlan } from "./seccomp.ts";

// The exec step builds the read rules itself, from modules that load nothing of Node's.
export { READ_RIGHTS, readRules } from "./read_rules.ts";
export type { LandlockPlan } from "./plan.ts";

/** Devices a command may write to (reading them is covered by the read grant). */
export const WRITABLE_DEVICES: readonly string[] = [
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
];

export interface PlanInput {
  settings: SandboxSettings;
  /** The kernel's Landlock ABI. */
  abi: number;
  /** Hidden paths that apply (outside the workspace and `--add-dir`s), real paths. */
  hidden: readonly string[];
}

/** The ruleset for `input`; the read rules are added by the exec step (`readRules`). */
export function landlockPlan(input: PlanInput): LandlockPlan {
  const { settings, abi } = input;
  const write = writeRights(abi);
  const handled = READ_RIGHTS | write;
  const rules: [string, bigint][] = [];
  const writable = settings.mode === "read-only"
    ? []
    : [settings.workspace, ...settings.addDirs].map((dir) => realpathLenient(dir));
  for (const dir of writable) rules.push([dir, READ_RIGHTS | write]);
  const deviceRights = FsAccess.readFile | FsAccess.writeFile |
    (abi >= 3 ? FsAccess.truncate : 0n);
  for (const device of WRITABLE_DEVICES) rules.push([device, deviceRights]);
  const plan: LandlockPlan = {
    abi,
    handled: String(handled),
    tempAccess: String(READ_RIGHTS | write),
    hidden: [...input.hidden],
    rules: rules.map(([target, access]) => [target, String(access)]),
  };
  if (!settings.network && abi >= 4) {
    plan.handledNet = String(NetAccess.bindTcp | NetAccess.connectTcp);
  }
  if (abi >= 6) {
    // Signals only within the command; abstract sockets too when the network is off.
    plan.scoped = String(Scope.signal | (settings.network ? 0n : Scope.abstractUnixSocket));
    plan.handledNet ??= "0";
  }
  // TCP is Landlock's from ABI 4; the filter refuses the other internet sockets (all below).
  const filter = filterPlan(Deno.build.arch, settings.network ? "open" : abi >= 4 ? "tcp" : "none");
  if ("seccomp" in filter) Object.assign(plan, filter);
  return plan;
}
