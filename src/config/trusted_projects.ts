/**
 * Which projects the user trusts: `trustedProjects` in the global config,
 * real paths of project folders. Only the global config is read for it — a
 * project cannot vouch for itself — and a yes at the terminal adds the
 * project there, so the question is asked once. The file is rewritten
 * atomically (temp file + rename) and stays parseable; like the "always here"
 * writer (src/permission/project_rules.ts), comments in it are not kept.
 */
import * as path from "../lib/path.ts";
import { parseJsonc } from "./jsonc.ts";
import { writeHostFile } from "../sandbox/writer/host_write.ts";
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
 * file (and its folder) when absent. Throws, leaving the file alone, when it
 * does not parse. Needs read and write access to the config folder.
 */
export async function rememberTrustedProject(
  globalFile: string,
  root: string,
): Promise<{ droppedComments: boolean }> {
  let text = "";
  try {
    text = await Deno.readTextFile(globalFile);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  let config: Record<string, unknown> = {};
  let droppedComments = false;
  if (text.trim()) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      droppedComments = true;
      try {
        value = parseJsonc(text);
      } catch (error) {
        throw new Error(
          `cannot remember the project as trusted: ${globalFile} is not valid JSON (${
            (error as Error).message
          }). Fix the file, or pass --trust-project each time.`,
        );
      }
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      throw new Error(
        `cannot remember the project as trusted: ${globalFile} is not a JSON object.`,
      );
    }
    config = value as Record<string, unknown>;
  }
  const listed = Array.isArray(config.trustedProjects) ? config.trustedProjects : [];
  const wanted = real(root);
  if (!listed.includes(wanted)) config.trustedProjects = [...listed, wanted];
  await writeAtomic(globalFile, JSON.stringify(config, null, 2) + "\n");
  return { droppedComments };
}

async function writeAtomic(file: string, text: string): Promise<void> {
  // The user's own config folder: a new file private, it may hold an API key later.
  await writeHostFile(file, text, { newMode: 0o600 });
}
