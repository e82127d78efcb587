/**
 * The definition of done: criteria the plan agent proposed with the
 * `done_propose` tool, measured once by the harness (how each stands before
 * the work) and kept in `.skiff/done.json`, which `skiff run --done` uses as
 * its gate. The tool writes nothing; the engine measures after the plan turn
 * and the front end writes the file, outside the read-only plan sandbox.
 * `.skiff/` is write-protected for the agent, so a working run cannot move
 * the goalposts (docs/verification.md).
 */
import * as path from "../contracts/path.ts";
import type { DoneProposal } from "../tools/session/done_propose.ts";
import type { EngineHandle } from "./host.ts";
import type { CommandRun, VerifyCheck } from "./verify.ts";
import { writeHostFile } from "../sandbox/host_write.ts";

/** Workspace-relative home of the criteria. */
export const DONE_FILE = ".skiff/done.json";

export interface DoneCriterion {
  name: string;
  command: string;
  exit_code: number;
  expects?: string;
  why: string;
  /** How it stood when proposed: the work is to change a failing one into a passing one. */
  current: { exit_code: number | null; passed: boolean; summary: string; output_path?: string };
}

export interface DoneFile {
  version: 1;
  /** The plan session that proposed them. */
  proposed_by: string;
  proposed_at: string;
  criteria: DoneCriterion[];
}

/** Runs each proposed criterion once and records where it stands now. */
export async function measureProposals(
  proposals: readonly DoneProposal[],
  sessionId: string,
  run: (command: string, index: number) => Promise<CommandRun>,
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
    const verdict = judge(check, await run(proposal.command, index + 1));
    criteria.push({
      name: proposal.name,
      command: proposal.command,
      exit_code: proposal.exit_code ?? 0,
      ...(proposal.expects === undefined ? {} : { expects: proposal.expects }),
      why: proposal.why,
      current: {
        exit_code: verdict.exit_code,
        passed: verdict.passed,
        summary: verdict.summary,
        ...(verdict.output_path ? { output_path: verdict.output_path } : {}),
      },
    });
  }
  return { version: 1, proposed_by: sessionId, proposed_at: now().toISOString(), criteria };
}

/**
 * Writes the criteria where `--done` reads them, never through a link out of
 * the workspace (a repository's `.skiff -> ../elsewhere` is refused:
 * src/sandbox/host_write.ts). Needs --allow-write for the workspace.
 */
export async function writeDoneFile(workspace: string, done: DoneFile): Promise<string> {
  const file = path.join(workspace, DONE_FILE);
  const text = JSON.stringify(done, null, 2) + "\n";
  await writeHostFile(file, text, { within: workspace });
  return file;
}

/**
 * The engine with the host writing what a plan run proposed, whichever front
 * end runs it (run, chat, batch): the engine's Worker may not write
 * `.skiff/`, and the agent never does. The result names the file written.
 */
export function savingDoneCriteria(engine: EngineHandle, workspace: string): EngineHandle {
  return {
    ...engine,
    async run(request) {
      const result = await engine.run(request);
      if (result.done) result.doneFile = await writeDoneFile(workspace, result.done);
      return result;
    },
  };
}

/** The gate `--done` runs, from `.skiff/done.json`; throws a message saying what to do. */
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
  }));
  if (!checks.length) {
    throw new Error(
      `${file} holds no criterion with a command; propose again with the plan agent.`,
    );
  }
  return checks;
}
