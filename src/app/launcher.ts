/**
 * How this session starts processes: bubblewrap on Linux, sandbox-exec on
 * macOS, a plain shell only in full-access mode. With no sandbox available
 * the launcher refuses until the gate has recorded a person's explicit yes —
 * two locks, so no code path runs a command unsandboxed by accident.
 */
import {
  acceptUnsandboxed,
  type AvailableSandboxes,
  chooseLauncher,
  probeSandboxes,
} from "../sandbox/choose.ts";
import type { SandboxSettings } from "../sandbox/modes.ts";
import { type ProcessLauncher, ToolError } from "../tools/tool.ts";
import type { EngineSpec } from "./engine_types.ts";

/** Shared by the launcher and the gate. */
export interface SandboxState {
  /** Set when no sandbox can contain commands in this mode. */
  refusal?: { message: string; warning: string };
  /** A person accepted running unsandboxed (interactive only). */
  approved: boolean;
  /** "bwrap", "sandbox-exec" or "none". */
  name: string;
  /**
   * Runs skiff's own helper commands (git status for the prompt) with
   * nothing writable; undefined when no sandbox exists and the mode is not
   * full-access.
   */
  readOnly?: ProcessLauncher;
}

export function sandboxSettings(spec: EngineSpec): SandboxSettings {
  return {
    mode: spec.sandbox.mode,
    workspace: spec.workspace,
    addDirs: spec.sandbox.addDirs,
    network: spec.sandbox.network,
    envNames: spec.sandbox.env,
  };
}

export async function chooseSessionLauncher(
  spec: EngineSpec,
  warnings: string[],
  probe: () => Promise<AvailableSandboxes> = () => probeSandboxes(),
): Promise<{ launcher: ProcessLauncher; state: SandboxState }> {
  const settings = sandboxSettings(spec);
  if (spec.owns.length && settings.mode === "workspace-write") {
    // A subagent that owns some paths: under bubblewrap only those are bound
    // writable; the rest of the workspace stays read-only like `/`.
    const existing = spec.owns.filter((owned) => {
      try {
        Deno.statSync(owned);
        return true;
      } catch {
        return false;
      }
    });
    if (existing.length === 0) settings.mode = "read-only";
    else {
      settings.workspace = existing[0];
      settings.addDirs = existing.slice(1);
    }
  }
  const available = spec.sandbox.mode === "full-access"
    ? { bwrap: null, sandboxExec: null }
    : await probe();
  const choice = chooseLauncher(settings, Deno.build.os, available);
  const readOnlyChoice = chooseLauncher(
    {
      ...sandboxSettings(spec),
      mode: spec.sandbox.mode === "full-access" ? "full-access" : "read-only",
    },
    Deno.build.os,
    available,
  );
  const readOnly = readOnlyChoice.kind === "launcher" ? readOnlyChoice.launcher : undefined;
  if (choice.kind === "launcher") {
    return { launcher: choice.launcher, state: { approved: false, name: choice.name, readOnly } };
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
      prepare(command, cwd) {
        if (!state.approved) throw new ToolError("denied", choice.message);
        plain ??= acceptUnsandboxed(settings);
        return plain.prepare(command, cwd);
      },
    },
  };
}
