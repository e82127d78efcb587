/**
 * `harness_status`: where the work stands, assembled from this workspace's
 * harness records — the objective (the last handoff's goal), recent
 * decisions, blockers and risks, the last verification, the last handoff and
 * a suggested next action — within a token budget. Git's state comes from
 * `.git`'s files; without git it says so and goes on.
 */
import * as z from "zod";
import { defineTool, type Tool } from "../tool.ts";
import type { HarnessRecord } from "../../store/memory.ts";
import type { HarnessDeps } from "./harness_scope.ts";
import { handoffPacket, renderHandoff } from "./harness_handoff.ts";
import { verificationPassed } from "./harness_verify.ts";

const schema = z.lazy(() =>
  z.object({
    max_records: z.number().int().min(1).max(50).optional().describe(
      "How many recent records of each sort to show; 10 when omitted.",
    ),
    token_budget: z.number().int().min(100).max(20000).optional().describe(
      "About how many tokens the answer may take (4 characters a token); 2000 when omitted.",
    ),
    include_git: z.boolean().optional().describe("Show the branch and commit; true when omitted."),
  })
);

const line = (record: HarnessRecord) =>
  `- h${record.id} ${
    new Date(record.created).toISOString().slice(0, 16).replace("T", " ")
  } ${record.summary}`;

/** The status as text, cut to `budgetChars` (whole sections first, most important first). */
export function harnessStatus(
  deps: HarnessDeps,
  options: { maxRecords?: number; budgetChars?: number; includeGit?: boolean } = {},
): string {
  const max = options.maxRecords ?? 10;
  const budget = options.budgetChars ?? 8000;
  const records = deps.memory.records(deps.place, { limit: 500 });
  const of = (kind: HarnessRecord["kind"]) => records.filter((r) => r.kind === kind);
  const handoff = of("handoff")[0];
  const packet = handoff ? handoffPacket(handoff) : null;
  const verification = of("verification_result")[0];
  const sections: string[] = [];

  sections.push(`Objective: ${packet?.current_goal ?? "(none recorded: no handoff yet)"}`);
  if (options.includeGit ?? true) {
    sections.push(`Git: ${deps.gitState() ?? "unavailable (not a git repository, or unreadable)"}`);
  }
  const next = verification && !verificationPassed(verification)
    ? `fix what the last verification reported: ${verification.summary}`
    : packet?.blockers?.length
    ? `clear the blocker: ${packet.blockers[0]}`
    : packet?.next_steps[0] ?? "record a decision or a handoff as the work goes";
  sections.push(`Suggested next action: ${next}`);
  sections.push(
    `Last verification: ${
      verification
        ? `${verification.details ?? ""} — ${verification.summary} (h${verification.id})`
        : "none recorded"
    }`,
  );
  const decisions = of("decision").slice(0, max);
  if (decisions.length) sections.push(["Recent decisions:", ...decisions.map(line)].join("\n"));
  const blockers = [...(packet?.blockers ?? []).map((b) => `- ${b}`)];
  const risks = [...of("risk"), ...of("failed_attempt")].sort((a, b) => b.created - a.created)
    .slice(0, max);
  if (blockers.length || risks.length) {
    sections.push(["Blockers and risks:", ...blockers, ...risks.map(line)].join("\n"));
  }
  if (packet) sections.push(`Last handoff (h${handoff.id}):\n${renderHandoff(packet)}`);
  const others = records.filter((r) =>
    ["assumption", "issue_update", "bug_reproduction"].includes(r.kind)
  ).slice(0, max);
  if (others.length) sections.push(["Other records:", ...others.map(line)].join("\n"));

  const note = "\n(cut to the token budget)";
  // Room is kept for the note, so the answer never passes the budget.
  const limit = budget - note.length;
  let text = "";
  for (const section of sections) {
    const joined = text ? `${text}\n\n${section}` : section;
    if (joined.length > limit) {
      const room = limit - text.length - 3;
      if (room > 80) text = `${text}\n\n${section.slice(0, room)}…`;
      return text + note;
    }
    text = joined;
  }
  return text;
}

export function createHarnessStatusTool(deps: HarnessDeps): Tool<z.infer<typeof schema>> {
  return defineTool({
    name: "harness_status",
    description: [
      "Where the work in this workspace stands, from what earlier sessions recorded: the objective, recent",
      "decisions, blockers, the last verification, the last handoff and a suggested next action. Call it when",
      "you start on work that may have been begun before.",
    ].join("\n"),
    schema,
    declare() {
      return { key: "harness_status", patterns: ["*"] };
    },
    execute(input) {
      const output = harnessStatus(deps, {
        maxRecords: input.max_records,
        budgetChars: (input.token_budget ?? 2000) * 4,
        includeGit: input.include_git,
      });
      return Promise.resolve({ output, title: "harness status", metadata: { scope: deps.scope } });
    },
  });
}

/** The tool's zod schema, a module constant (the registry converts it ahead of time). */
export { schema as statusSchema };
