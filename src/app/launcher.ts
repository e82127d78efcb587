/**
 * Picks how this session starts processes. Interim: a plain `sh -c` with the
 * child environment allowlist; the sandbox layer replaces it.
 */
import type { ProcessLauncher } from "../tools/tool.ts";
import type { EngineIO, EngineSpec } from "./engine_types.ts";

const CHILD_ENV = ["PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR"];

export function chooseSessionLauncher(
  spec: EngineSpec,
  _io: EngineIO,
  _warnings: string[],
): Promise<ProcessLauncher> {
  const names = [...CHILD_ENV, ...spec.sandbox.env];
  return Promise.resolve({
    prepare(command: string) {
      const env: Record<string, string> = {};
      for (const name of names) {
        const value = Deno.env.get(name);
        if (value !== undefined) env[name] = value;
      }
      return Promise.resolve({ argv: ["sh", "-c", command], env });
    },
  });
}
