/**
 * A folder's entries, or none when it cannot be read (missing, not a folder,
 * no permission): the protected-path searches treat all of these alike.
 */
export function dirEntriesOrNone(folder: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(folder)];
  } catch {
    return [];
  }
}
