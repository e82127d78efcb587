/**
 * How this session starts processes: bubblewrap on Linux (the bash tool's
 * commands in sandboxes kept up for the session), sandbox-exec on macOS, a plain shell only in full-access mode. With no sandbox available
 * the launcher refuses until the gate has recorded a person's explicit yes —
 * two locks, so no code path runs a command unsandboxed by accident.
 */
import {
  acceptUnsandboxed,
  type AvailableSandboxes,
  chooseLauncher,
  probeSandboxesFor,
  type SandboxBackend,
} from "../sandbox/choose.ts";
import type { LandlockProbeCache } from "../sandbox/landlock/probe_cache.ts";
import type { SandboxSettings } from "../sandbox/modes.ts";
import { isWithin, ownedPath, realpathLenient } from "../sandbox/paths.ts";
import { isToolWriteProtected, protectedPaths } from "../sandbox/protected.ts";
import { CommandGuard } from "../sandbox/guard/command_guard.ts";
import { replayGuardJournals } from "../sandbox/guard/journal.ts";
import { bwrapSessionLauncher } from "../sandbox/bwrap/session.ts";
import { landlockSessionLauncher } from "../sandbox/landlock/session.ts";
import { writeCachedBwrapProbe } from "../sandbox/bwrap/probe_cache.ts";
import { commandShell } from "../sandbox/shell.ts";
import { type ProcessLauncher, ToolError } from "../tools/tool.ts";
import type { EngineSpec } from "./types.ts";
import * as path from "../lib/path.ts";

/** Shared by the launcher and the gate. */
export interface SandboxState {
  /** Set when no sandbox can contain commands in this mode. */
  refusal?: { message: string; warning: string };
  /** A person accepted running unsandboxed (interactive only). */
  approved: boolean;
  /** "bwrap", "landlock", "sandbox-exec" or "none". */
  name: string;
  /**
   * Runs skiff's own helper commands (git status for the prompt) with
   * nothing writable; undefined when no sandbox exists and the mode is not
   * full-access.
   */
  readOnly?: ProcessLauncher;
  /** Stops what the launcher keeps running for the session (its sandboxes). */
  close?: () => Promise<void>;
}

/** Where a session keeps Landlock's probe answer, when the host gave the key. */
export function landlockProbeCacheOf(
  spec: Pick<EngineSpec, "dataDir" | "sandbox">,
): LandlockProbeCache | undefined {
  const key = spec.sandbox.landlockProbeKey;
  return key ? { dataDir: spec.dataDir, key } : undefined;
}

export function sandboxSettings(spec: EngineSpec): SandboxSettings {
  return {
    mode: spec.sandbox.mode,
    workspace: spec.workspace,
    addDirs: spec.sandbox.addDirs,
    network: spec.sandbox.network,
    envNames: spec.sandbox.env,
    hidden: spec.sandbox.hiddenMounts,
    limits: spec.sandbox.limits,
    gitViews: path.join(spec.dataDir, "git-views"),
  };
}

/**
 * True when a subagent's owned folder is, or holds, one of the workspace's
 * protected paths. The sandbox is then rooted at that folder and re-binds
 * only the protected paths below *it*, so owning `.git` or `.claude` would
 * leave the hooks or agent files writable to commands; such a folder stays
 * read-only instead (the file tools are refused there by the policy anyway).
 */
function holdsProtected(workspace: string, owned: string): boolean {
  const root = realpathLenient(workspace);
  const real = realpathLenient(owned);
  if (real === root) return false;
  return isToolWriteProtected(root, real) ||
    protectedPaths(root).some((target) => isWithin(real, target));
}

/**
 * Landlock cannot show commands a git config without its credential
 * (bubblewrap mounts such a copy): in the writable workspace the file stays
 * readable to commands, in a read-only one it is unreadable and git fails.
 * Either way the person is told, with what removes the cause.
 */
function landlockGitCredentialWarnings(settings: SandboxSettings): string[] {
  const roots = [settings.workspace, ...settings.addDirs].map((dir) => realpathLenient(dir));
  const writable = settings.mode === "read-only" ? [] : roots;
  return (settings.hidden ?? [])
    .filter((mount) => mount.gitCredential)
    .map((mount) =>
      `${mount.path} holds a git credential (an http extraheader or a token in a URL). ` +
      (writable.some((root) => isWithin(root, mount.path))
        ? "The file tools refuse it, but under the Landlock sandbox commands can read it. "
        : "Under the Landlock sandbox commands cannot read it, so git fails in this repository. ") +
      "Remove it before running skiff (GitHub Actions: persist-credentials: false on " +
      "actions/checkout), or run where bubblewrap works (skiff doctor says why it does not here)."
    );
}

export async function chooseSessionLauncher(
  spec: EngineSpec,
  warnings: string[],
  /** Probes only what `backend` can use: no Landlock probe where bubblewrap works. */
  probe: (backend: SandboxBackend) => Promise<AvailableSandboxes> = (backend) =>
    probeSandboxesFor(backend, landlockProbeCacheOf(spec)),
): Promise<{ launcher: ProcessLauncher; state: SandboxState }> {
  const settings = sandboxSettings(spec);
  if (spec.owns.length && settings.mode === "workspace-write") {
    // A subagent that owns some paths: under bubblewrap only those are bound
    // writable; the rest of the workspace stays read-only like `/`. Judged
    // by real path now, as the sandbox binds it: a link planted since the
    // owns were checked (by an earlier task) cannot make its target writable.
    const existing = spec.owns.flatMap((entry) => {
      const owned = ownedPath(spec.workspace, entry);
      if (!owned.inside) {
        warnings.push(
          `owned path ${entry} now leads outside the workspace (to ${owned.real}, through a symbolic link); it stays read-only. Remove the link, or own the folder it points to by making it the task's workspace.`,
        );
        return [];
      }
      try {
        Deno.statSync(owned.real);
      } catch {
        return [];
      }
      return holdsProtected(spec.workspace, owned.real) ? [] : [owned.real];
    });
    if (existing.length === 0) settings.mode = "read-only";
    else {
      settings.visible = [settings.workspace, ...settings.addDirs];
      settings.workspace = existing[0];
      settings.addDirs = existing.slice(1);
    }
  }
  const backend = spec.sandbox.backend ?? "auto";
  const available = spec.sandbox.mode === "full-access"
    ? { bwrap: null, sandboxExec: null }
    : await probe(backend);
  const choice = chooseLauncher(settings, Deno.build.os, available, undefined, backend);
  const readOnlyChoice = chooseLauncher(
    {
      ...sandboxSettings(spec),
      mode: spec.sandbox.mode === "full-access" ? "full-access" : "read-only",
    },
    Deno.build.os,
    available,
    undefined,
    backend,
  );
  const readOnly = readOnlyChoice.kind === "launcher" ? readOnlyChoice.launcher : undefined;
  // Commands may not change files that run code later; full-access opts out.
  const journal = `${spec.dataDir}/guard-journal`;
  const guard = spec.sandbox.mode === "workspace-write"
    ? new CommandGuard({
      roots: [spec.workspace, ...spec.sandbox.addDirs],
      protect: spec.sandbox.protect,
      journal,
    })
    : undefined;
  // Checks a skiff that died mid-command never ran (and its watcher did not either).
  const writable = [spec.workspace, ...spec.sandbox.addDirs].map((root) => realpathLenient(root));
  const ours = (record: { roots: string[] }) =>
    record.roots.every((root) => writable.some((mine) => isWithin(mine, root)));
  for (const report of replayGuardJournals(journal, CommandGuard.replay, ours)) {
    warnings.push(
      `A command of an earlier skiff session that was stopped before its check changed ` +
        `protected files; skiff checked it now. ${report}\nReview the workspace (git status).`,
    );
  }
  if (choice.kind === "launcher") {
    if (choice.name === "bwrap" && available.bwrap) {
      // Commands of the bash tool run in a sandbox that stays up for the
      // session (same mounts and settings; src/sandbox/pool/pool.ts).
      const cache = landlockProbeCacheOf(spec);
      const pooled = bwrapSessionLauncher(settings, {
        bwrapPath: available.bwrap,
        shell: commandShell().program,
        // Bubblewrap kept as working failed here: the next start probes again.
        onStartFailed: cache ? () => writeCachedBwrapProbe(cache, null) : undefined,
      }, guard);
      return {
        launcher: pooled,
        state: { approved: false, name: choice.name, readOnly, close: () => pooled.close() },
      };
    }
    if (choice.name === "landlock" && available.landlock) {
      warnings.push(...landlockGitCredentialWarnings(settings));
      // Under Landlock the same: holders that stay up for the session, each in
      // one domain with a command's ruleset (src/sandbox/landlock/session.ts).
      const pooled = landlockSessionLauncher(settings, {
        abi: available.landlock,
        shell: commandShell().program,
      }, guard);
      return {
        launcher: pooled,
        state: { approved: false, name: choice.name, readOnly, close: () => pooled.close() },
      };
    }
    return {
      launcher: { ...choice.launcher, guard },
      state: { approved: false, name: choice.name, readOnly },
    };
  }
  warnings.push(choice.warning);
  const state: SandboxState = {
    refusal: { message: choice.message, warning: choice.warning },
    approved: false,
    name: "none",
  };
  let plain: ProcessLauncher | undefined;
  return {
    state,
    launcher: {
      guard,
      prepare(command, cwd) {
        if (!state.approved) throw new ToolError("denied", choice.message);
        plain ??= acceptUnsandboxed(settings);
        return plain.prepare(command, cwd);
      },
    },
  };
}
