/**
 * The definition of done: criteria the plan agent proposed with the
 * `done_propose` tool, measured once by the harness (how each stands before
 * the work) and kept in `.skiff/done.json`, which `skiff run --done` uses as
 * its checks. The tool writes nothing; the engine measures after the plan turn
 * and the front end writes the file, outside the read-only plan sandbox.
 * The model chose those commands: one is measured only when the rules that
 * judge the agent's `bash` calls would run it unasked; the others are
 * recorded, not run. The file is project content: `--done` runs its commands
 * in a trusted project, or where a rule allows them. `.skiff/` is
 * write-protected for the agent, so a working run cannot move the goalposts
 * (docs/verification.md, docs/security.md).
 */
import * as path from "../../lib/path.ts";
import type { DoneProposal } from "../../tools/session/done_propose.ts";
import type { CommandRun, VerifyCheck } from "./verify.ts";
import type { UnattendedCommand } from "../permission_gate.ts";
import { shellLine } from "../../permission/hints.ts";
import { writeHostFile } from "../../sandbox/writer/host_write.ts";

/** Workspace-relative home of the criteria. */
export const DONE_FILE = ".skiff/done.json";

export interface DoneCriterion {
  name: string;
  command: string;
  exit_code: number;
  expects?: string;
  why: string;
  /** How it stood when proposed: the work is to change a failing one into a passing one. */
  current: {
    exit_code: number | null;
    passed: boolean;
    summary: string;
    output_path?: string;
    /** Not run when proposed: the agent's rules would not run it unasked. */
    not_run?: true;
    /** The flags that would have run it (proved by the policy), when some would. */
    allow_with?: string[];
  };
}

/** A proposal that was not run: why, and the flags that would run it. */
export interface NotRun {
  notRun: string;
  allowWith?: string[];
}

export interface DoneFile {
  version: 1;
  /** The plan session that proposed them. */
  proposed_by: string;
  proposed_at: string;
  criteria: DoneCriterion[];
}

/**
 * Runs each proposed criterion once, where `run` lets it (the agent's
 * rules), and records where it stands now, or that it was not run and why.
 */
export async function measureProposals(
  proposals: readonly DoneProposal[],
  sessionId: string,
  run: (command: string, index: number) => Promise<CommandRun | NotRun>,
  now: () => Date = () => new Date(),
): Promise<DoneFile> {
  // verify.ts brings the bash tool and zod: evaluated by a plan run's end, not at every start.
  const { judge } = await import("./verify.ts");
  const criteria: DoneCriterion[] = [];
  for (const [index, proposal] of proposals.entries()) {
    const check: VerifyCheck = {
      name: proposal.name,
      command: proposal.command,
      exitCode: proposal.exit_code,
      expects: proposal.expects,
    };
    const ran = await run(proposal.command, index + 1);
    let current: DoneCriterion["current"];
    if ("notRun" in ran) {
      current = {
        exit_code: null,
        passed: false,
        summary: `not run: ${ran.notRun}`,
        not_run: true,
        ...(ran.allowWith ? { allow_with: ran.allowWith } : {}),
      };
    } else {
      const verdict = judge(check, ran);
      current = {
        exit_code: verdict.exit_code,
        passed: verdict.passed,
        summary: verdict.summary,
        ...(verdict.output_path ? { output_path: verdict.output_path } : {}),
      };
    }
    criteria.push({
      name: proposal.name,
      command: proposal.command,
      exit_code: proposal.exit_code ?? 0,
      ...(proposal.expects === undefined ? {} : { expects: proposal.expects }),
      why: proposal.why,
      current,
    });
  }
  return { version: 1, proposed_by: sessionId, proposed_at: now().toISOString(), criteria };
}

/**
 * Why a run may not start, when a check of its checks came from the
 * repository (`fromProject`, read from this file) in a project the person
 * has not trusted: each such command needs a rule among those that judge
 * the agent's `bash` calls (`judge`: the session gate's unattended verdict,
 * by rule; `--yes` is not trust). The message says what would allow it.
 */
export async function projectCheckRefusal(
  until: string | VerifyCheck[] | undefined,
  judge: (command: string) => Promise<UnattendedCommand>,
): Promise<string | undefined> {
  if (!Array.isArray(until)) return undefined;
  for (const check of until.filter((check) => check.fromProject)) {
    const verdict = await judge(check.command);
    if (verdict.allowed) continue;
    const allow = verdict.allowWith
      ? `rerun with ${shellLine(verdict.allowWith)}, or trust the project with --trust-project`
      : "trust the project with --trust-project";
    return `--done: the check \`${check.command}\` comes from ${DONE_FILE}, which is the ` +
      `repository's, and this project is not trusted (${verdict.reason}). Nothing was run. ` +
      `Read the file; if you want its commands run, ${allow}.`;
  }
  return undefined;
}

/**
 * Writes the criteria where `--done` reads them, never through a link out of
 * the workspace (a repository's `.skiff -> ../elsewhere` is refused:
 * src/sandbox/writer/host_write.ts). Needs --allow-write for the workspace.
 */
export async function writeDoneFile(workspace: string, done: DoneFile): Promise<string> {
  const file = path.join(workspace, DONE_FILE);
  const text = JSON.stringify(done, null, 2) + "\n";
  await writeHostFile(file, text, { within: workspace });
  return file;
}

/**
 * The checks `--done` runs, from `.skiff/done.json`; throws a message saying
 * what to do. Whoever wrote the file (this plan run, or the repository's
 * author), its checks are project content (`fromProject`).
 */
export function readDoneChecks(workspace: string): VerifyCheck[] {
  const file = path.join(workspace, DONE_FILE);
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch {
    throw new Error(
      `--done needs ${file}, which does not exist. Have the plan agent propose the criteria ` +
        `first: skiff run --agent plan "work out how we will know this is done: …"`,
    );
  }
  let parsed: Partial<DoneFile>;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); propose again.`);
  }
  const criteria = Array.isArray(parsed.criteria) ? parsed.criteria : [];
  const checks = criteria.filter((criterion) =>
    typeof criterion?.command === "string" && criterion.command.trim()
  ).map((criterion) => ({
    name: String(criterion.name ?? criterion.command),
    command: criterion.command,
    exitCode: typeof criterion.exit_code === "number" ? criterion.exit_code : 0,
    ...(typeof criterion.expects === "string" ? { expects: criterion.expects } : {}),
    fromProject: true,
  }));
  if (!checks.length) {
    throw new Error(
      `${file} holds no criterion with a command; propose again with the plan agent.`,
    );
  }
  return checks;
}
