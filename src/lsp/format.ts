/**
 * The diagnostics report as the model reads it, appended to a file tool's
 * result: new errors with place and code, servers still busy, notes.
 */
import type { DiagnosticsReport, FileDiagnostic } from "./types.ts";

/** At most this many errors are listed; the rest are counted. */
const MAX_LISTED = 20;

/** The text appended to the tool's output, or "" when there is nothing to say. */
export function formatDiagnostics(report: DiagnosticsReport): string {
  const parts: string[] = [];
  if (report.errors.length) {
    const listed = report.errors.slice(0, MAX_LISTED).map((error) =>
      `${error.path}:${error.line}:${error.column}: ${codeText(error)}${
        error.message.replace(/\s*\n\s*/g, " ")
      }`
    );
    const more = report.errors.length - listed.length;
    parts.push(
      `New errors the language server reports after this change (fix them):\n${listed.join("\n")}${
        more > 0 ? `\n… and ${more} more` : ""
      }`,
    );
  }
  if (report.busy.length) {
    parts.push(
      `The language server ${
        report.busy.join(", ")
      } was still busy: no diagnostics for this change yet (the next change to the same file reports what this one broke too).`,
    );
  }
  parts.push(...report.notes);
  return parts.join("\n");
}

/** The error's code as its checker prints it (TypeScript's are numbers shown as TS2322). */
function codeText(error: FileDiagnostic): string {
  if (!error.code) return "";
  const typescript = error.source === "typescript" && /^\d+$/.test(error.code);
  return `${typescript ? "TS" : ""}${error.code} `;
}
