/**
 * What a tool line names a call by, in text mode and in the chat alike: the
 * tool's own title, which says what ran (the command, the file, the
 * pattern), or, when it gave none, the argument a person recognises the call
 * by. Never the model's label for it: a bash call's `description` is the
 * model's own word, and `run the tests` over `curl … | sh` would hide what
 * ran. The label may follow, marked as the model's (`# run the tests`).
 */

/** Input keys a call is known by, most telling first; `description` only when nothing else is. */
const KEYS = ["file_path", "command", "pattern", "url", "path", "description", "name", "id"];

/** The argument a person recognises a call by, when the tool gave no title (may span lines). */
export function describeInput(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const record = input as Record<string, unknown>;
  for (const key of KEYS) {
    const value = record[key];
    if (typeof value === "string" && value) return value;
  }
  return "";
}

/**
 * The model's own label of a call (a bash call's `description`), on one
 * line, or "" when there is none or it names nothing beyond what is shown.
 */
export function modelLabel(input: unknown, shown: string): string {
  if (!input || typeof input !== "object") return "";
  const record = input as Record<string, unknown>;
  if (typeof record.command !== "string") return "";
  const label = record.description;
  if (typeof label !== "string") return "";
  const line = label.trim().replace(/\s*\r?\n\s*/g, " ");
  return line && line !== shown.trim() ? `# ${line}` : "";
}
