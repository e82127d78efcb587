/**
 * The terminal side of the file tools' editor requests (`skiff acp`): the
 * engine's Worker asks for a buffer's text or hands it new text, and this
 * side passes the request to the editor. The Worker's own Deno permissions
 * stop a read or write outside its folders; a request relayed here would
 * not meet them, so the same folders are checked here, by the real path,
 * before the editor hears of it: a Worker that asks for a path the session
 * may not touch gets a refusal, and the editor is never asked.
 */
import type { EditorFiles } from "../contracts/editor_files.ts";
import type { EditorRequest } from "../engine/protocol.ts";
import * as path from "../lib/path.ts";
import { isWithin, realpathLenient } from "../sandbox/paths.ts";

type PathPermission = Deno.PermissionOptionsObject["read"];

/** Whether `permission` (a Worker's read or write grant) covers the real path of `file`. */
export function grantCovers(permission: PathPermission, file: string): boolean {
  if (permission === true) return true;
  if (!Array.isArray(permission) || !path.isAbsolute(file)) return false;
  const real = realpathLenient(path.normalize(file));
  return permission.some((folder) => isWithin(realpathLenient(String(folder)), real));
}

/**
 * Answers one editor request of the engine under `permissions` (the
 * Worker's): the text read, or nothing for a write. Throws when the path is
 * outside what the Worker may read or write, or the editor offers no such
 * call, before the editor is asked.
 */
export async function relayEditorRequest(
  request: EditorRequest,
  editor: EditorFiles | undefined,
  permissions: Deno.PermissionOptionsObject,
): Promise<string | undefined> {
  const reading = request.op === "read";
  const grant = reading ? permissions.read : permissions.write;
  if (!grantCovers(grant, request.file)) {
    const error = new Error(
      `${request.file} is outside the folders this session may ${
        reading ? "read" : "write"
      }; the editor was not asked`,
    );
    error.name = "NotCapable";
    throw error;
  }
  if (reading) {
    if (!editor?.read) throw new Error("the editor offers no reads");
    return await editor.read(request.file);
  }
  if (!editor?.write) throw new Error("the editor offers no writes");
  await editor.write(request.file, request.text);
}
