/**
 * No OS sandbox: `sh -c` with the environment allowlist. Only for
 * `full-access`, or when a person explicitly accepted running unsandboxed;
 * the guard lives here so no caller can use it by accident.
 */
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import { childEnv } from "./env.ts";
import type { SandboxSettings } from "./modes.ts";

export interface PlainOptions {
  /** Set only after a person answered yes to the "run unsandboxed?" warning. */
  acceptedUnsandboxed?: boolean;
  getEnv?: (name: string) => string | undefined;
  /** The shell. @default "sh" */
  shell?: string;
}

export function plainLauncher(
  settings: SandboxSettings,
  options: PlainOptions = {},
): ProcessLauncher {
  if (settings.mode !== "full-access" && !options.acceptedUnsandboxed) {
    throw new Error(
      `Refusing to run commands without a sandbox in '${settings.mode}' mode. ` +
        "Install bubblewrap (apt-get install bubblewrap) or choose --sandbox full-access.",
    );
  }
  return {
    prepare(command: string, _cwd: string) {
      const env = childEnv(settings.envNames, options.getEnv);
      return Promise.resolve({ argv: [options.shell ?? "sh", "-c", command], env });
    },
  };
}
