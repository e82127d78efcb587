/**
 * The language servers' word on what a file tool changed: new errors (or
 * that a server was still busy) appended to the result for the model, and
 * put in its metadata for `skiff tool`, the events and the chat's count.
 * The change is already on disk: nothing here can make the call fail.
 */
import type { ToolContext, ToolResult } from "../tool.ts";
import type { FileChange } from "./change_set.ts";
import { formatDiagnostics } from "../../lsp/format.ts";

/** `result` with the diagnostics of `changes` (written files only) added. */
export async function withDiagnostics(
  ctx: ToolContext,
  result: ToolResult,
  changes: readonly FileChange[],
): Promise<ToolResult> {
  if (!ctx.diagnostics) return result;
  const files = changes.flatMap((change) =>
    change.afterText === null ? [] : [{
      real: change.target.real,
      display: change.target.display,
      before: change.beforeText,
      after: change.afterText,
    }]
  );
  if (files.length === 0) return result;
  let report;
  try {
    report = await ctx.diagnostics.diagnose(files, ctx.signal);
  } catch {
    return result;
  }
  if (!report) return result;
  const text = formatDiagnostics(report);
  return {
    ...result,
    output: text ? `${result.output}\n\n${text}` : result.output,
    metadata: { ...result.metadata, diagnostics: report },
  };
}
