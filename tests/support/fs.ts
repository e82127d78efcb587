/** File-system helpers for tests. */

/** Whether something is at `file` (a link counts as what it points to). */
export function existsSync(file: string): boolean {
  try {
    Deno.statSync(file);
    return true;
  } catch {
    return false;
  }
}
