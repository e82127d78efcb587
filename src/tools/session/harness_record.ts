/**
 * `harness_record`: one durable piece of work-state — a decision, a failed
 * attempt, a risk, a verification result… — kept for the sessions after this
 * one, which read it through `harness_status` and their system prompt.
 */
import * as z from "zod";
import { defineTool, type Tool } from "../tool.ts";
import { HARNESS_KINDS } from "../../store/memory.ts";
import { type HarnessDeps, scopePath } from "./harness_scope.ts";

export const recordSchema = z.lazy(() =>
  z.object({
    kind: z.enum(HARNESS_KINDS).describe("What happened."),
    summary: z.string().min(1).max(500).describe("One or two sentences."),
    details: z.string().max(8000).optional().describe(
      "More context, when the summary is not enough.",
    ),
    source_paths: z.array(z.string()).max(50).optional().describe("Files this is about."),
    command: z.string().max(1000).optional().describe("The command that produced the evidence."),
    commit_sha: z.string().max(64).optional().describe(
      "The commit it refers to; the current one when omitted.",
    ),
    evidence_refs: z.array(z.string()).max(50).optional().describe(
      "Paths, URLs or ids that back it up.",
    ),
    importance: z.number().min(0).max(1).optional().describe("0 to 1; 0.7 when omitted."),
  })
);

export function createHarnessRecordTool(deps: HarnessDeps): Tool<z.infer<typeof recordSchema>> {
  return defineTool({
    name: "harness_record",
    description: [
      "Record durable work-state for later sessions: a decision (and why), a failed attempt (so nobody repeats it),",
      "a bug reproduction, a verification result, a risk, an assumption, an issue update. Use remember for facts",
      "about the project; use this for the trail of the work.",
    ].join("\n"),
    schema: recordSchema,
    declare(input) {
      return { key: "harness_record", patterns: [input.kind] };
    },
    execute(input, ctx) {
      const record = deps.memory.record(deps.place, {
        kind: input.kind,
        summary: input.summary,
        details: input.details,
        sourcePaths: (input.source_paths ?? []).map((file) =>
          scopePath(deps.scope, ctx.workspace, file)
        ),
        command: input.command,
        commitSha: input.commit_sha ?? deps.commit(),
        evidenceRefs: input.evidence_refs,
        importance: input.importance,
        sessionId: deps.sessionId,
      });
      return Promise.resolve({
        output: `Recorded h${record.id} (${record.kind}): ${record.summary}`,
        title: `${record.kind} recorded`,
        metadata: { id: record.id, kind: record.kind },
      });
    },
  });
}
