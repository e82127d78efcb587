/**
 * done_propose: how the plan agent hands over a definition of done — the
 * commands that will judge the work, what each must show, and why. A tool
 * rather than prose, so the criteria are data the harness can run. It writes
 * nothing: the proposal is recorded, and when the plan turn ends the harness
 * runs once each criterion the agent's bash rules allow (to record how it
 * stands now; the others are recorded, not run) and writes them to
 * `.skiff/done.json` for `skiff run --done`. Only the plan agent gets it: a
 * tool that redefines done, within reach of the agent being judged, is the
 * shortest way out of the gate.
 */
import * as z from "zod";
import { defineTool, ToolError } from "../tool.ts";

/** Built with the tool's schema, when that is first needed. */
const criterionSchema = () =>
  z.object({
    name: z.string().min(1).describe("A short name, such as 'unit tests pass'."),
    command: z.string().min(1).describe(
      "The shell command that checks it, run from the workspace root, such as 'npm test'.",
    ),
    exit_code: z.number().int().min(0).max(255).optional().describe(
      "The exit code the command must end with (default 0).",
    ),
    expects: z.string().min(1).optional().describe(
      "Text the command's output must contain, besides the exit code.",
    ),
    why: z.string().min(1).describe("Why this shows the work is done."),
  });

export type DoneProposal = z.infer<ReturnType<typeof criterionSchema>>;

const schema = z.lazy(() =>
  z.object({
    criteria: z.array(criterionSchema()).min(1).max(20).describe(
      "The complete set of criteria; a later call replaces it.",
    ),
  })
);

/** The tool for one plan session; `submit` keeps the proposal for the harness. */
export function createDoneProposeTool(submit: (criteria: DoneProposal[]) => void) {
  return defineTool({
    name: "done_propose",
    description: [
      "Propose the definition of done for the work being planned: commands that will judge it, what each must show, and why.",
      "- Each criterion is a shell command run from the workspace root, with the exit code it must end with (default 0) and optional text its output must contain.",
      "- Prefer the project's own checks (its test, lint and build commands), narrowed to what the work touches.",
      "- Nothing runs or is written now. When you finish, skiff runs once each command your bash rules allow, to record how it stands (the others are recorded, not run), and saves them to .skiff/done.json; `skiff run --done` then holds the working agent to them.",
    ].join("\n"),
    schema,
    declare() {
      // Touches nothing: the harness measures and writes after the turn.
      return { key: "done_propose", patterns: ["*"] };
    },
    execute(input) {
      const names = input.criteria.map((criterion) => criterion.name);
      const twice = names.find((name, index) => names.indexOf(name) !== index);
      if (twice) {
        return Promise.reject(
          new ToolError(
            "bad_input",
            `two criteria are named "${twice}".`,
            "Give each criterion its own name.",
          ),
        );
      }
      submit(input.criteria);
      const lines = input.criteria.map((criterion) =>
        `- ${criterion.name}: \`${criterion.command}\` → exit ${criterion.exit_code ?? 0}${
          criterion.expects ? `, output containing "${criterion.expects}"` : ""
        }`
      );
      return Promise.resolve({
        output: `Recorded ${input.criteria.length} criteri${
          input.criteria.length === 1 ? "on" : "a"
        }:\n${
          lines.join("\n")
        }\nWhen this turn ends, skiff runs once each one your bash rules allow, to record how it stands now (the others are recorded, not run), and writes them to .skiff/done.json.`,
        title: `${input.criteria.length} done criteri${input.criteria.length === 1 ? "on" : "a"}`,
        metadata: { criteria: input.criteria },
      });
    },
  });
}

/** The tool's zod schema, a module constant (the registry converts it ahead of time). */
export { schema as doneProposeSchema };
