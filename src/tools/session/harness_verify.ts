/**
 * `harness_verify`: the outcome of a verification command — its exit code
 * and a summary of its output — recorded as a `verification_result`, so
 * `harness_status` shows the last one and `harness_handoff` can tell verified
 * work from claimed work. A skip is recorded too, with its reason: negative
 * evidence is evidence.
 */
import * as z from "zod";
import { defineTool, type Tool } from "../tool.ts";
import type { HarnessRecord } from "../../store/memory.ts";
import { type HarnessDeps, scopePath } from "./harness_scope.ts";

const schema = z.lazy(() =>
  z.object({
    command: z.string().min(1).max(1000).describe("The command that was run, e.g. deno task test."),
    exit_code: z.number().int().describe("Its exit code (0 is success)."),
    output_summary: z.string().min(1).max(500).describe(
      'What it said, e.g. "873 passed, 0 failed".',
    ),
    passed: z.boolean().optional().describe("Pass or fail; exit_code == 0 when omitted."),
    evidence_path: z.string().optional().describe("A file holding the full output."),
    skipped_reason: z.string().max(500).optional().describe("When it was not run: why."),
    importance: z.number().min(0).max(1).optional().describe("0 to 1; 0.8 when omitted."),
  })
);

/** Whether a verification record says it passed (the word is in its details). */
export function verificationPassed(record: HarnessRecord): boolean {
  return record.details?.startsWith("passed") ?? false;
}

/** One verification, as harness_status and handoffs read it. */
export interface Verification {
  command: string;
  exitCode: number | null;
  outputSummary: string;
  /** "passed", "failed" or "skipped: why". */
  verdict: string;
  evidence: string[];
  importance?: number;
}

/**
 * Record a verification: the model's own (harness_verify) and each check of
 * a `--until` gate (the engine) take this one path, so status and handoffs
 * see both.
 */
export function recordVerification(deps: HarnessDeps, check: Verification): HarnessRecord {
  return deps.memory.record(deps.place, {
    kind: "verification_result",
    summary: `${check.command} → exit ${check.exitCode ?? "none"}: ${check.outputSummary}`,
    details: check.verdict,
    command: check.command,
    commitSha: deps.commit(),
    evidenceRefs: check.evidence,
    importance: check.importance ?? 0.8,
    sessionId: deps.sessionId,
  });
}

export function createHarnessVerifyTool(deps: HarnessDeps): Tool<z.infer<typeof schema>> {
  return defineTool({
    name: "harness_verify",
    description: [
      "Record the outcome of a verification you ran (tests, build, lint): the command, its exit code and a short summary.",
      "Record failures and skips too. harness_status shows the last verification, and a handoff needs one to claim completion.",
    ].join("\n"),
    schema,
    declare() {
      return { key: "harness_verify", patterns: ["*"] };
    },
    execute(input, ctx) {
      const passed = input.skipped_reason ? false : input.passed ?? input.exit_code === 0;
      const verdict = input.skipped_reason
        ? `skipped: ${input.skipped_reason}`
        : passed
        ? "passed"
        : "failed";
      const record = recordVerification(deps, {
        command: input.command,
        exitCode: input.exit_code,
        outputSummary: input.output_summary,
        verdict,
        evidence: input.evidence_path
          ? [scopePath(deps.scope, ctx.workspace, input.evidence_path)]
          : [],
        importance: input.importance,
      });
      return Promise.resolve({
        output: `Recorded verification h${record.id}: ${verdict}.`,
        title: `verification ${verdict.split(":")[0]}`,
        metadata: { id: record.id, passed },
      });
    },
  });
}

/** The tool's zod schema, a module constant (the registry converts it ahead of time). */
export { schema as verifySchema };
