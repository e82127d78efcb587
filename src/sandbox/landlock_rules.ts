/**
 * The Landlock ruleset for one command (src/sandbox/landlock_launcher.ts):
 * everything readable except the hidden paths, the workspace and `--add-dir`s
 * writable (not in read-only mode), one private temp folder writable, the
 * character devices a shell writes to, and with the network off every TCP
 * bind and connect denied. Landlock only grants, it cannot deny beneath a
 * grant: a hidden path is left out by granting each of its siblings instead
 * of its folder, and a protected path inside the writable workspace cannot be
 * made read-only (the command guard reverts it when the command ends).
 */
import * as path from "node:path";
import { FsAccess, NetAccess, Scope, writeRights } from "./landlock.ts";
import type { SandboxSettings } from "./modes.ts";
import { isWithin, realpathLenient } from "./paths.ts";

/** Rights to read and run what is there. */
export const READ_RIGHTS = FsAccess.readFile | FsAccess.readDir | FsAccess.execute;
const FILE_READ = FsAccess.readFile | FsAccess.execute;

/** Devices a command may write to (reading them is covered by the read grant). */
export const WRITABLE_DEVICES: readonly string[] = [
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
];

/** A ruleset as the launcher passes it to its exec step: rights as decimal strings. */
export interface LandlockPlan {
  handled: string;
  /** Rights on the command's private temp folder, which the exec step makes. */
  tempAccess: string;
  /** Where that folder is made (`skiff-landlock-<pid>`). @default "/tmp" */
  tempRoot?: string;
  /**
   * Paths left unreadable. The exec step turns them into read rules itself
   * (`readRules`): listing `/` needs a read permission the engine lacks.
   */
  hidden: string[];
  handledNet?: string;
  scoped?: string;
  rules: [string, string][];
}

export interface PlanInput {
  settings: SandboxSettings;
  /** The kernel's Landlock ABI. */
  abi: number;
  /** Hidden paths that apply (outside the workspace and `--add-dir`s), real paths. */
  hidden: readonly string[];
}

function listFolder(dir: string): { name: string; folder: boolean }[] {
  const entries: { name: string; folder: boolean }[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    let folder = entry.isDirectory;
    if (entry.isSymlink) {
      try {
        folder = Deno.statSync(path.join(dir, entry.name)).isDirectory;
      } catch {
        continue; // a dangling link: nothing to grant
      }
    }
    entries.push({ name: entry.name, folder });
  }
  return entries;
}

/**
 * Read rules for all of `/` except `hidden`: a folder holding a hidden path
 * gets only the right to list it (so the hidden names can be listed, not
 * read), and each of its other entries is granted whole.
 */
export function readRules(
  hidden: readonly string[],
  list: (dir: string) => { name: string; folder: boolean }[] = listFolder,
): [string, bigint][] {
  const rules: [string, bigint][] = [];
  const grant = (target: string, folder: boolean) => {
    if (hidden.includes(target)) return;
    if (!folder || !hidden.some((inside) => inside !== target && isWithin(target, inside))) {
      rules.push([target, folder ? READ_RIGHTS : FILE_READ]);
      return;
    }
    rules.push([target, FsAccess.readDir]);
    let entries: { name: string; folder: boolean }[] = [];
    try {
      entries = list(target);
    } catch {
      return; // unreadable to skiff too: nothing to grant
    }
    for (const entry of entries) grant(path.join(target, entry.name), entry.folder);
  };
  grant("/", true);
  return rules;
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
  return plan;
}
