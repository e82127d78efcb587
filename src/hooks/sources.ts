/**
 * The hooks of a session, gathered from the four places they are written —
 * the user's global config and ~/.claude/settings.json, the project's
 * skiff.json and .claude/settings(.local).json — and judged once: a
 * project's hooks are code the repository ships, so they run only when the
 * project is trusted (the one trust decision, src/trust/project_trust.ts);
 * until then they are listed among what the project asks for, in the trust
 * question or in the warning that says how to trust it. Only the user's own hooks may run outside the sandbox, and only when
 * the user's global config says so. Pure but for the injected reader.
 */
import type { HooksConfig } from "../config/schema.ts";
import {
  claudeProjectSettingsFiles,
  type ClaudeSettingsRead,
  claudeUserSettingsFile,
} from "../config/claude_settings.ts";
import {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  type HookEventName,
  type HookSource,
  type HookSpec,
} from "./types.ts";

export interface HookSourcesOptions {
  home: string;
  workspace: string;
  /** The global config file and its `hooks`, when it has any. */
  user?: { file: string; hooks?: HooksConfig };
  /** The project config file and its `hooks`, when it has any. */
  project?: { file: string; hooks?: HooksConfig };
  /** Reads one Claude Code settings file (each read once, shared with the permission layers). */
  readClaude: (file: string) => ClaudeSettingsRead;
  /** The session's trust decision on the project. */
  projectTrusted: boolean;
  /** `sandbox.unsandboxedHooks` of the user's global config. */
  userUnsandboxed: boolean;
}

/** The session's hooks in the order they were written (user first), and notes for the user. */
export function sessionHookSpecs(
  options: HookSourcesOptions,
): { hooks: HookSpec[]; warnings: string[] } {
  const hooks: HookSpec[] = [];
  const warnings: string[] = [];
  for (const { source, file, value } of hookFiles(options)) {
    const found = readHooks(value, file, source, warnings);
    const project = source === "skiff-project" || source === "claude-project";
    // The trust warning already names them, with the flag that trusts the
    // project: they are trust subjects (`projectHookSubjects`).
    if (project && !options.projectTrusted) continue;
    for (const hook of found) {
      hooks.push({ ...hook, unsandboxed: !project && options.userUnsandboxed });
    }
  }
  return { hooks, warnings };
}

/**
 * The project's hooks as the trust question lists them, per file: what
 * trusting the project would run.
 */
export function projectHookSubjects(
  options: Pick<HookSourcesOptions, "home" | "workspace" | "project" | "readClaude">,
): { file: string; asks: string[] }[] {
  return hookFiles({ ...options, user: undefined, projectOnly: true }).flatMap(
    ({ source, file, value }) => {
      const asks = readHooks(value, file, source, []).map((hook) =>
        `hook ${hook.event}: ${hook.command}`
      );
      return asks.length ? [{ file, asks }] : [];
    },
  );
}

function hookFiles(
  options: Pick<HookSourcesOptions, "home" | "workspace" | "user" | "project" | "readClaude"> & {
    projectOnly?: boolean;
  },
): { source: HookSource; file: string; value: unknown }[] {
  const files: { source: HookSource; file: string; value: unknown }[] = [];
  const claude = (source: HookSource, file: string) => {
    const value = options.readClaude(file).hooks;
    if (value !== undefined) files.push({ source, file, value });
  };
  if (!options.projectOnly) {
    claude("claude-user", claudeUserSettingsFile(options.home));
    if (options.user?.hooks) {
      files.push({ source: "skiff-user", file: options.user.file, value: options.user.hooks });
    }
  }
  for (const file of claudeProjectSettingsFiles(options.workspace)) claude("claude-project", file);
  if (options.project?.hooks) {
    files.push({
      source: "skiff-project",
      file: options.project.file,
      value: options.project.hooks,
    });
  }
  return files;
}

/** The hooks of one file's `hooks` value; what skiff cannot run is left out with a note. */
function readHooks(
  value: unknown,
  file: string,
  source: HookSource,
  warnings: string[],
): Omit<HookSpec, "unsandboxed">[] {
  const parsed = hooksShape(value);
  if (!parsed) {
    warnings.push(
      `${file}: "hooks" is not in Claude Code's shape ({"Event": [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}); its hooks are not run`,
    );
    return [];
  }
  const found: Omit<HookSpec, "unsandboxed">[] = [];
  for (const [event, groups] of Object.entries(parsed)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warnings.push(`${file}: skiff runs no ${event} hooks; those are left out`);
      continue;
    }
    for (const group of groups) {
      const matcher = group.matcher?.trim() || undefined;
      if (matcher && !validMatcher(matcher)) {
        warnings.push(`${file}: ${event} matcher "${matcher}" is not a valid pattern; left out`);
        continue;
      }
      for (const hook of group.hooks) {
        if (hook.type !== "command" || !hook.command?.trim()) {
          warnings.push(
            `${file}: a ${event} hook of type "${hook.type}" is left out: skiff runs "command" hooks`,
          );
          continue;
        }
        found.push({
          event: event as HookEventName,
          ...(matcher ? { matcher } : {}),
          command: hook.command,
          // Held to an hour: a timer longer than about 24 days would fire at once.
          timeoutSeconds: Math.min(hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS, 3600),
          source,
          file,
        });
      }
    }
  }
  return found;
}

function validMatcher(matcher: string): boolean {
  try {
    new RegExp(matcher);
    return true;
  } catch {
    return false;
  }
}

/**
 * `value` when it is in Claude Code's shape (what the config schema checks
 * for skiff's own files), else undefined. By hand: the host does not load
 * the schema library for another program's file.
 */
function hooksShape(value: unknown): HooksConfig | undefined {
  const isObject = (item: unknown): item is Record<string, unknown> =>
    typeof item === "object" && item !== null && !Array.isArray(item);
  if (!isObject(value)) return undefined;
  const commandShaped = (hook: unknown) =>
    isObject(hook) && typeof hook.type === "string" &&
    (hook.command === undefined || typeof hook.command === "string") &&
    (hook.timeout === undefined || (typeof hook.timeout === "number" && hook.timeout > 0));
  const groupShaped = (group: unknown) =>
    isObject(group) && (group.matcher === undefined || typeof group.matcher === "string") &&
    Array.isArray(group.hooks) && group.hooks.every(commandShaped);
  const shaped = Object.values(value).every((groups) =>
    Array.isArray(groups) && groups.every(groupShaped)
  );
  return shaped ? value as HooksConfig : undefined;
}
