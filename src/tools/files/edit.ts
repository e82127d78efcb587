/**
 * The `edit` tool: replace text in a file the model has read, found by the
 * replacer chain (edit_replacers.ts), refusing to guess when the match is
 * ambiguous. Several edits in one call land together or not at all. The
 * file keeps its line endings, BOM, final newline and mode; the diff goes
 * to metadata, the model gets a one-line confirmation. The write goes
 * through the change set (change_set.ts).
 */
import * as z from "zod";
import { defineTool, type ToolContext, ToolError, type ToolResult } from "../tool.ts";
import { applyEdit, type EditOutcome, type EditRequest } from "./match/match.ts";
import {
  countLines,
  decodeText,
  encodeText,
  keepFinalNewline,
  linesText,
  looksBinary,
  statOrNull,
  toLf,
} from "./_file_io.ts";
import { fileDiff } from "./_file_diff.ts";
import { commitFileChange, diffMetadata, type FileChange, withLockedFile } from "./change_set.ts";
import { withDiagnostics } from "./_diagnostics.ts";
import { fileAccess, PREVIEW_MAX_BYTES, resolveToolPath, type ToolPath } from "../tool_paths.ts";

/** Built with the edit schema, when that is first needed. */
const editItem = () =>
  z.object({
    old_string: z.string().describe(
      "Text to replace, copied from the file as read (without the line-number prefix).",
    ),
    new_string: z.string().describe("Text to put in its place."),
    replace_all: z.boolean().optional().describe(
      "Replace every occurrence instead of requiring exactly one.",
    ),
  });

export const editSchema = z.lazy(() =>
  z.object({
    file_path: z.string().describe(
      "File to change: a path relative to the workspace, or absolute.",
    ),
    old_string: z.string().optional().describe(
      "Exact text to replace, copied from the file as read, without the line-number prefix. " +
        "Include enough surrounding lines that it appears exactly once. " +
        "Empty only to create a file that does not exist yet.",
    ),
    new_string: z.string().optional().describe(
      "The replacement text. Must differ from old_string.",
    ),
    replace_all: z.boolean().optional().describe(
      "Replace every occurrence of old_string (for renames). Default false: old_string must match once.",
    ),
    edits: z.array(editItem()).optional().describe(
      "Several edits to this one file, applied in order, each to the result of the previous one; " +
        "all succeed or none is written. Use instead of old_string/new_string.",
    ),
  })
);

export type EditInput = z.infer<typeof editSchema>;

/** The edits a call asks for: the top-level pair first, then `edits`. */
export function collectEdits(input: EditInput): EditRequest[] {
  const list: EditRequest[] = [];
  if (input.old_string !== undefined || input.new_string !== undefined) {
    if (input.old_string === undefined || input.new_string === undefined) {
      throw new ToolError(
        "bad_input",
        "old_string and new_string must be given together.",
        "Send both old_string and new_string, or put the changes in edits.",
      );
    }
    list.push({
      old_string: input.old_string,
      new_string: input.new_string,
      replace_all: input.replace_all,
    });
  }
  list.push(...(input.edits ?? []));
  if (list.length === 0) {
    throw new ToolError(
      "bad_input",
      "No edit given.",
      "Send old_string and new_string, or a non-empty edits list.",
    );
  }
  return list;
}

/** Apply every edit to `text` in order; a failure names which edit failed. */
export function applyEdits(
  text: string,
  edits: EditRequest[],
  display: string,
): { text: string; outcomes: EditOutcome[] } {
  const outcomes: EditOutcome[] = [];
  let current = text;
  for (const [index, request] of edits.entries()) {
    try {
      const outcome = applyEdit(current, request, display);
      outcomes.push(outcome);
      current = outcome.text;
    } catch (error) {
      if (!(error instanceof ToolError) || edits.length === 1) throw error;
      throw new ToolError(
        error.code,
        `Edit ${index + 1} of ${edits.length}: ${error.message} Nothing was written.`,
        error.hint,
        { ...error.metadata, edit_index: index },
      );
    }
  }
  return { text: keepFinalNewline(text, current), outcomes };
}

function isCreation(edits: EditRequest[]): boolean {
  return edits.length === 1 && edits[0].old_string === "";
}

function summarise(
  display: string,
  outcomes: EditOutcome[],
  additions: number,
  deletions: number,
  lines: number,
): string {
  const occurrences = outcomes.reduce((sum, o) => sum + o.occurrences, 0);
  // Each edit's line is where it landed in the text the edits before it left.
  const what = outcomes.length > 1
    ? `: ${outcomes.length} edits, at lines ${outcomes.map((o) => o.line).join(", ")}`
    : occurrences > 1
    ? `: ${occurrences} occurrences, the first at line ${outcomes[0].line}`
    : ` at line ${outcomes[0].line}`;
  const notes = outcomes.flatMap((o, i) => {
    const label = outcomes.length > 1 ? `edit ${i + 1} ` : "";
    const parts = [];
    if (o.how) parts.push(`${label}matched ${o.how}`);
    if (o.reindented) parts.push(`${label}new_string re-indented to fit`);
    return parts;
  });
  const tail = notes.length ? ` Note: ${notes.join("; ")}.` : "";
  return `Edited ${display}${what} (+${additions} -${deletions} lines; now ${
    linesText(lines)
  }).${tail}`;
}

async function createFile(
  path: ToolPath,
  content: string,
  ctx: ToolContext,
  changed: FileChange[],
): Promise<ToolResult> {
  const after = toLf(content);
  const bytes = new TextEncoder().encode(content);
  const change = { target: path, before: null, after: bytes, beforeText: null, afterText: after };
  const diff = await commitFileChange(ctx, change, "create");
  changed.push(change);
  return {
    output: `Created ${path.display} (${linesText(countLines(after))}).`,
    title: `${path.display} (created)`,
    metadata: { diff: diff.diff, additions: diff.additions, deletions: 0, created: true },
  };
}

export const editTool = defineTool({
  name: "edit",
  description:
    "Replace text in a file you have read in this session. old_string must match the file " +
    "exactly once (copy it from read's output, without the line-number prefix); if it matches " +
    "several places the edit fails and names their lines, so add context. Small whitespace or " +
    "indentation slips, read's line-number prefixes and typographic quotes or dashes are " +
    "tolerated (only into a unique match) and reported. Set replace_all to change every occurrence. " +
    "Use edits for several changes to one file at once (all or nothing). The file's line " +
    "endings, encoding marks and permissions are kept. Fails if the file changed since you read it.",
  schema: editSchema,

  async declare(input, ctx) {
    const target = resolveToolPath(ctx, input.file_path);
    let preview: string | undefined;
    try {
      const edits = collectEdits(input);
      const info = await statOrNull(target.real);
      if (info?.isFile && info.size <= PREVIEW_MAX_BYTES) {
        const doc = decodeText(await Deno.readFile(target.real));
        preview =
          fileDiff(target.display, doc.text, applyEdits(doc.text, edits, target.display).text).diff;
      } else if (!info && isCreation(edits)) {
        preview = fileDiff(target.display, null, toLf(edits[0].new_string)).diff;
      }
    } catch {
      // No preview when the edit would fail: execute reports why.
    }
    return fileAccess("edit", [target], preview);
  },

  async execute(input, ctx) {
    const target = resolveToolPath(ctx, input.file_path);
    const edits = collectEdits(input);
    const changed: FileChange[] = [];
    const result = await withLockedFile(
      ctx,
      target,
      "edit",
      "Give the path of a file.",
      async (before) => {
        if (before === null) {
          if (isCreation(edits)) return await createFile(target, edits[0].new_string, ctx, changed);
          throw new ToolError(
            "not_found",
            `${target.display} does not exist.`,
            "Check the path (glob can find the file), or use write to create a new file.",
          );
        }
        ctx.files.assertEditable(target.real, before, target.display);
        if (looksBinary(before)) {
          throw new ToolError(
            "binary_file",
            `${target.display} is a binary file; edit changes text files only.`,
          );
        }
        const doc = decodeText(before);
        let result: { text: string; outcomes: EditOutcome[] };
        if (isCreation(edits) && doc.text === "") {
          result = { text: toLf(edits[0].new_string), outcomes: [] };
        } else {
          result = applyEdits(doc.text, edits, target.display);
        }
        if (result.text === doc.text) {
          throw new ToolError(
            "no_op_edit",
            `The edit would leave ${target.display} exactly as it is; nothing was written.`,
            "Put the text you want in new_string, or skip this edit.",
          );
        }
        const after = encodeText(result.text, doc);
        const change = { target, before, after, beforeText: doc.text, afterText: result.text };
        const diff = await commitFileChange(ctx, change, "write");
        changed.push(change);
        const lines = countLines(result.text);
        const output = result.outcomes.length
          ? summarise(target.display, result.outcomes, diff.additions, diff.deletions, lines)
          : `Wrote ${target.display} (${linesText(lines)}).`;
        return {
          output,
          title: `${target.display} (+${diff.additions} -${diff.deletions})`,
          metadata: {
            ...diffMetadata(diff),
            replacers: result.outcomes.map((o) => o.replacer),
          },
        };
      },
    );
    // Outside the file's lock: the language server's wait holds no other call.
    return await withDiagnostics(ctx, result, changed);
  },
});
