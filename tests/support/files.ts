/** Files as tests look at them. */

/** Whether `file` is there (a link counts as itself, not where it points). */
export function exists(file: string): boolean {
  try {
    Deno.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
