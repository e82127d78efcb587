/**
 * `harness_handoff`: a packet for the next session — the goal, what was
 * touched and decided, what was and was not tested, risks, blockers, next
 * steps — stored as a `handoff` record. It never claims the work complete
 * without verification evidence: given, or a passing `harness_verify` of this
 * session; otherwise it says plainly that the work is not verified.
 */
import * as z from "zod";
import { defineTool, type Tool } from "../tool.ts";
import type { HarnessRecord } from "../../store/memory.ts";
import { type HarnessDeps, scopePath } from "./harness_scope.ts";
import { verificationPassed } from "./harness_verify.ts";

const list = (what: string) => z.array(z.string().max(500)).max(50).optional().describe(what);

export const handoffSchema = z.lazy(() =>
  z.object({
    current_goal: z.string().min(1).max(300).describe("What the work is for."),
    files_touched: list("Files changed in this session."),
    decisions_made: list("Short decision summaries."),
    tests_run: list("Tests or commands that were run."),
    tests_not_run: list("Tests known to be missing or skipped."),
    known_risks: list("Open risks."),
    blockers: list("What blocks progress."),
    next_steps: z.array(z.string().max(500)).min(1).max(50).describe(
      "What the next session should do, first thing first.",
    ),
    verification_evidence: z.string().max(1000).optional().describe(
      "Evidence the work is done (a test count, a command's result). Without it the handoff says the work is not verified.",
    ),
  })
);

export type HandoffPacket = z.infer<typeof handoffSchema> & { verified: string | null };

/** The packet a handoff record holds, or null for one that holds none. */
export function handoffPacket(record: HarnessRecord): HandoffPacket | null {
  try {
    const packet = JSON.parse(record.details ?? "");
    return packet && typeof packet.current_goal === "string" ? packet : null;
  } catch {
    return null;
  }
}

export function renderHandoff(packet: HandoffPacket): string {
  const lines = [`Goal: ${packet.current_goal}`];
  lines.push(
    packet.verified
      ? `Status: verified (${packet.verified})`
      : "Status: NOT verified — do not take this work as complete.",
  );
  const section = (title: string, items: string[] | undefined) => {
    if (items?.length) lines.push(`${title}:`, ...items.map((item) => `- ${item}`));
  };
  section("Files touched", packet.files_touched);
  section("Decisions", packet.decisions_made);
  section("Tests run", packet.tests_run);
  section("Tests not run", packet.tests_not_run);
  section("Risks", packet.known_risks);
  section("Blockers", packet.blockers);
  section("Next steps", packet.next_steps);
  return lines.join("\n");
}

export function createHarnessHandoffTool(deps: HarnessDeps): Tool<z.infer<typeof handoffSchema>> {
  return defineTool({
    name: "harness_handoff",
    description: [
      "Leave a handoff for the next session: the goal, files touched, decisions, tests run and not run, risks,",
      "blockers and next steps. It is stored and shown to the next session. Give verification_evidence (or record a",
      "passing harness_verify first) to mark the work verified; without evidence it is marked not verified.",
    ].join("\n"),
    schema: handoffSchema,
    declare() {
      return { key: "harness_handoff", patterns: ["*"] };
    },
    execute(input, ctx) {
      const lastCheck = deps.memory.records(deps.place, {
        kinds: ["verification_result"],
        limit: 1,
      })
        .find((record) => record.sessionId === deps.sessionId);
      const verified = input.verification_evidence ??
        (lastCheck && verificationPassed(lastCheck)
          ? `h${lastCheck.id}: ${lastCheck.summary}`
          : null);
      const packet: HandoffPacket = {
        ...input,
        files_touched: input.files_touched?.map((file) =>
          scopePath(deps.scope, ctx.workspace, file)
        ),
        verified,
      };
      const record = deps.memory.record(deps.place, {
        kind: "handoff",
        summary: input.current_goal,
        details: JSON.stringify(packet),
        sourcePaths: packet.files_touched,
        commitSha: deps.commit(),
        importance: 0.9,
        sessionId: deps.sessionId,
      });
      return Promise.resolve({
        output: `Handoff h${record.id} stored.\n${renderHandoff(packet)}`,
        title: verified ? "handoff (verified)" : "handoff (not verified)",
        metadata: { id: record.id, verified: Boolean(verified) },
      });
    },
  });
}

/** A handoff record as the text the next session reads; null when it holds no packet. */
export function handoffPacketText(record: HarnessRecord): string | null {
  const packet = handoffPacket(record);
  return packet ? renderHandoff(packet) : null;
}
