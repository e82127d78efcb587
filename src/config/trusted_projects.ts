/**
 * Which projects the user trusts: `trustedProjects` in the global config,
 * real paths of project folders. Only the global config is read for it — a
 * project cannot vouch for itself — and a yes at the terminal adds the
 * project there, so the question is asked once, by the config editor
 * (src/config/jsonc.ts), which keeps the file's comments.
 */
import * as path from "../lib/path.ts";
import type { Config } from "./schema.ts";

/** The real path of a folder, or the path itself when it cannot be resolved. */
function real(folder: string): string {
  try {
    return Deno.realPathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** Whether the global config lists `root` (compared by real path). */
export function isTrustedProject(global: Config | undefined, root: string): boolean {
  const wanted = real(root);
  return (global?.trustedProjects ?? []).some((listed) => real(listed) === wanted);
}

/**
 * Add `root` to `trustedProjects` in the global config file, creating the
 * file (and its folder) when absent; the file's comments and other keys stay.
 * Throws, leaving the file alone, when it does not parse. Needs read and
 * write access to the config folder.
 */
export async function rememberTrustedProject(globalFile: string, root: string): Promise<void> {
  const { editConfigFile } = await import("./jsonc.ts");
  await editConfigFile(globalFile, (config) => {
    const listed = Array.isArray(config.trustedProjects) ? config.trustedProjects : [];
    const wanted = real(root);
    if (!listed.includes(wanted)) config.trustedProjects = [...listed, wanted];
  }, {
    purpose: "cannot remember the project as trusted",
    fix: "Fix the file, or pass --trust-project each time.",
    // The user's own config folder: a new file private, it may hold an API key later.
    write: { newMode: 0o600 },
  });
}
