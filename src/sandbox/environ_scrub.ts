/**
 * Keeps credentials out of `/proc/<skiff's pid>/environ`. That file shows
 * the environment block the process started with, in its own memory, and a
 * process of the same user that is not contained — a `full-access` command,
 * an unsandboxed MCP server — may read it. Unsetting a variable does not
 * touch that block, so each credential (a name `looksSecret` matches) is
 * first copied (`Deno.env.set` makes the environment point at a new copy:
 * skiff and what it starts still see it), then its bytes in the block are
 * overwritten through `/proc/self/mem`. What this does not do: the value is
 * still in skiff's memory, which a same-user process that may ptrace skiff
 * reads through `/proc/<pid>/mem` (root always; anyone where Yama's
 * `ptrace_scope` is 0 or absent) — docs/security.md, `skiff doctor`.
 * Linux only; needs `--allow-all` (Deno guards /proc/self); best effort.
 */
import { looksSecret } from "./env.ts";

/** Field 50 of /proc/self/stat: where the environment block starts. */
function environStart(): number | null {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  // Fields after the name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[50 - 3]);
  return Number.isSafeInteger(start) && start > 0 ? start : null;
}

/** Overwrites every credential's value in this process's initial environment block. */
export function hideSecretsFromEnviron(): void {
  if (Deno.build.os !== "linux") return;
  try {
    const block = Deno.readFileSync("/proc/self/environ");
    const secrets: { at: number; length: number }[] = [];
    let entry = 0;
    while (entry < block.length) {
      let end = block.indexOf(0, entry);
      if (end < 0) end = block.length;
      const equals = block.indexOf(0x3d, entry); // "="
      if (equals > entry && equals < end - 1) {
        // A name is ASCII (a byte each); no TextDecoder, whose first use costs milliseconds.
        const name = String.fromCharCode(...block.subarray(entry, equals));
        if (looksSecret(name)) {
          const value = Deno.env.get(name);
          if (value !== undefined) Deno.env.set(name, value);
          secrets.push({ at: equals + 1, length: end - equals - 1 });
        }
      }
      entry = end + 1;
    }
    if (secrets.length === 0) return;
    const start = environStart();
    if (start === null) return;
    const memory = Deno.openSync("/proc/self/mem", { read: true, write: true });
    try {
      for (const secret of secrets) {
        memory.seekSync(start + secret.at, Deno.SeekMode.Start);
        memory.writeSync(new Uint8Array(secret.length).fill(0x2a)); // "*"
      }
    } finally {
      memory.close();
    }
  } catch {
    // No /proc, or no right to it: the block keeps what it had (doctor says where this applies).
  }
}
