/**
 * OS containment of what the model runs, one folder per backend:
 * bubblewrap (`bwrap/`), Landlock with a seccomp filter (`landlock/`),
 * sandbox-exec on macOS (`macos/`), and plain processes in `full-access`
 * (`plain.ts`). `choose.ts` picks the backend the machine supports and
 * says why when none does. The bash tool's commands run in sandboxes kept
 * up for the session (`pool/`: one pool drives bubblewrap and Landlock
 * holders alike). The command guard (`guard/`) surveys what a command may
 * not change and puts it back, from a journal that survives skiff's death.
 * Writes of the file tools go through a Landlock-confined writer Worker,
 * and files skiff writes for the user outside the sandbox through
 * `writeHostFile` (`writer/`). Paths, hidden paths, protected paths, git
 * credentials and the Worker's Deno permissions are decided here too.
 * docs/security.md has the threat model.
 */
export { chooseLauncher } from "./choose.ts";
export { writeHostFile } from "./writer/host_write.ts";
export { workerPermissions } from "./worker_permissions.ts";
