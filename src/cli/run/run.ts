/**
 * `skiff run`: one prompt, headless, to the end. The prompt comes from the
 * arguments and piped stdin (never a terminal wait; src/cli/prompt_input.ts); events go to the text or
 * JSONL renderer; the exit code says how it ended (docs/cli.md).
 */
import * as path from "../../lib/path.ts";
import type { CommonOptions } from "../../host/setup.ts";
import { prepare } from "../../host/setup.ts";
import type { EngineIO } from "../../engine/types.ts";
import { startEngine } from "../../host/start.ts";
import { jsonlRenderer } from "../../ui/jsonl.ts";
import { textRenderer } from "../../ui/text.ts";
import { ExitCode, OUTCOME_EXIT_CODES, UsageError } from "../exit_codes.ts";
import { numberFlag } from "../number_flags.ts";
import { approvalPrompter } from "../approvals.ts";
import { isNullDevice, readPrompt } from "../prompt_input.ts";
import { interruptHandler } from "../interrupts.ts";
import { reportFatal } from "../report_fatal.ts";
import { priceFor } from "../../provider/cost.ts";
import type { Config } from "../../config/schema.ts";
import { GLOBAL_CONFIG_FILE } from "../../config/locations.ts";
import { RunSummary } from "./summary.ts";
import { applyProtect, protectPatterns, type UntilFlags, untilFromFlags } from "./until_checks.ts";
import type { DoneFile } from "../../engine/verify/done_criteria.ts";
import { shellLine } from "../../permission/hints.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { beforeDeadline, startCutMessage } from "./deadline.ts";
import {
  hostWriteRefusal,
  HostWriteRefused,
  namedWithin,
  replacedLinkNotice,
  writeHostFile,
} from "../../sandbox/writer/host_write.ts";
import { redactSecrets } from "../../contracts/redact.ts";

export interface RunOptions extends CommonOptions, UntilFlags {
  maxTurns?: string;
  maxTime?: string;
  maxCost?: string;
  maxTokens?: string;
  continue?: boolean;
  session?: string;
  json?: boolean;
  outputLastMessage?: string;
  /** Markdown file for a CI job's page (src/cli/run/summary.ts). */
  summary?: string;
  quiet?: boolean;
}

/** `--max-cost` (or config maxCost) for a model with no known price is refused, saying how to set one. */
function requirePrice(model: string, config: Config, configDir: string): void {
  if (priceFor(model, config.models)) return;
  const file = path.join(configDir, GLOBAL_CONFIG_FILE);
  const example = JSON.stringify({ models: { [model]: { cost: { input: 3, output: 15 } } } });
  throw new UsageError(
    `--max-cost needs the price of model "${model}", which skiff does not know. Set it ` +
      `(US dollars per million tokens; cachedInput is optional) in ${file}, e.g.:\n  ${example}\n` +
      "with the numbers from your provider's price list, or use --max-tokens instead.",
  );
}

/** `-o` names a file in a folder that must exist: found out before the model is paid for. */
function checkOutputFolder(file: string, flag = "--output-last-message"): void {
  const folder = path.dirname(path.resolve(file));
  let isFolder = false;
  try {
    isFolder = Deno.statSync(folder).isDirectory;
  } catch { /* reported below */ }
  if (!isFolder) {
    throw new UsageError(
      `${flag} ${file}: the folder ${folder} does not exist. Create it or pick another path.`,
    );
  }
}

export async function runCommand(promptArgs: string[], options: RunOptions): Promise<number> {
  try {
    return await runOrThrow(promptArgs, options);
  } catch (error) {
    return reportFatal(error);
  }
}

async function runOrThrow(promptArgs: string[], options: RunOptions): Promise<number> {
  if (options.continue && options.session) {
    throw new UsageError("use either --continue or --session <id>, not both.");
  }
  const maxTurnsFlag = numberFlag("--max-turns", options.maxTurns);
  const maxTime = numberFlag("--max-time", options.maxTime);
  const maxCostFlag = numberFlag("--max-cost", options.maxCost, "dollars");
  const maxTokensFlag = numberFlag("--max-tokens", options.maxTokens);
  if (options.outputLastMessage) checkOutputFolder(options.outputLastMessage);
  if (options.summary) checkOutputFolder(options.summary, "--summary");
  const protect = protectPatterns(options.protect);
  const prompt = await readPrompt(promptArgs, {
    notice: options.quiet ? undefined : (text) => console.error(text),
    stdin: promptStdin(),
  });
  // Ctrl-C at a question asked while the run is set up (trust this project?)
  // stops the run; the question itself is answered "no".
  let interruptedAtSetup = false;
  const setupPrompter = approvalPrompter(true);
  const { spec, config } = await prepare(options, true, async (request) => {
    if (interruptedAtSetup) return "deny";
    const answer = await setupPrompter(request);
    if (answer !== "interrupt") return answer;
    interruptedAtSetup = true;
    return "deny";
  });
  if (interruptedAtSetup) {
    console.error("skiff: interrupted before the run started; nothing was sent to the model.");
    return ExitCode.interrupted;
  }
  // No turn limit unless one is set: a run ends by time, not by a count (docs/cli.md).
  const maxTurns = maxTurnsFlag ?? config.maxTurns;
  const maxSeconds = maxTime ?? config.maxTime;
  const maxCostUsd = maxCostFlag ?? config.maxCost;
  const maxTokens = maxTokensFlag ?? config.maxTokens;
  // A cost limit needs a price: refused before anything is spent, never guessed.
  if (maxCostUsd !== undefined) requirePrice(spec.model, config, spec.configDir);
  // A folder of an output path linked out of where it was named: refused before the model is paid.
  const outputs = outputFiles(options, spec);
  for (const { file, within } of outputs) {
    const refused = within === undefined ? null : hostWriteRefusal(file, within);
    if (refused) throw refused;
  }
  // The `--until` checks and the protected paths (docs/verification.md), settled before the engine starts.
  const until = untilFromFlags(options, spec.workspace);
  applyProtect(spec, protect);

  const render = options.json ? jsonlRenderer() : textRenderer({ quiet: options.quiet });
  // When whoever reads our output goes away (`skiff run --json | head`),
  // stop the run the way a pipe would stop any other program: quietly.
  let readerGone = false;
  const summary = options.summary ? new RunSummary() : undefined;
  const prompter = approvalPrompter(spec.interactive);
  const io: EngineIO = {
    event: (event) => {
      summary?.observe(event);
      if (readerGone) return;
      try {
        render(event);
      } catch (error) {
        if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
        readerGone = true;
        engine.abort();
      }
    },
    ask: async (request) => {
      const answer = await prompter(request);
      // Ctrl-C at an approval prompt: the call does not run, and the run
      // stops as at a Ctrl-C anywhere else (exit 130).
      if (answer === "interrupt") onSignal();
      return answer;
    },
  };
  const engine = await startEngine(spec, io);
  const onSignal = interruptHandler({
    stop: () => engine.abort(),
    forceExit: () => Deno.exit(ExitCode.interrupted),
  });
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const watchdog = maxTimeWatchdog(maxSeconds);
  // The run's clock starts before its session opens: opening waits on MCP servers too.
  const deadline = maxSeconds ? Date.now() + maxSeconds * 1000 : undefined;
  let finished: { exitCode: number; sessionId: string; text: string };
  try {
    try {
      const opened = await beforeDeadline(
        engine.open({
          sessionId: options.session,
          continueLatest: options.continue,
          promptNext: true,
        }),
        deadline,
      );
      if (opened.kind === "time-up") {
        engine.abort();
        // The session is ended as a limit ends a run: status "limit", `error` and `session.completed`.
        const closing = await engine.endCutStart?.({
          message: startCutMessage(maxSeconds!),
          exitCode: ExitCode.limit,
          prompt,
        });
        if (closing) { for (const event of closing) io.event(event); }
        else console.error(`skiff: ${startCutMessage(maxSeconds!)}`);
        return ExitCode.limit;
      }
      const result = await engine.run({
        prompt,
        exitCodes: OUTCOME_EXIT_CODES,
        maxTurns,
        maxCostUsd,
        maxTokens,
        deadline,
        ...until,
      });
      if (result.done && result.doneFile && !options.quiet) {
        doneNotice(result.done, result.doneFile);
      }
      finished = result;
    } finally {
      await engine.close();
    }
    // Written once the engine is closed: no command of the run is left to swap a folder meanwhile.
    // The watchdog still runs: writing to a FIFO nobody reads would otherwise never end.
    return await writeOutputs(outputs, finished, summary);
  } finally {
    // Only a watchdog that exists: even `clearTimeout(undefined)` loads Deno's timers
    // in a process that started none.
    if (watchdog !== undefined) clearTimeout(watchdog);
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
}

/**
 * Stdin for the prompt. In CI (`CI` set) it is read only when it is a pipe, a
 * file or /dev/null: a runner may leave stdin open on something that never
 * ends, and a job must not wait on it. Elsewhere, as prompt_input.ts says.
 */
export function promptStdin(
  ci = Deno.env.get("CI"),
  kind: (path: string) => Pick<Deno.FileInfo, "isFile" | "isFifo" | "isCharDevice" | "rdev"> = (
    path,
  ) => Deno.statSync(path),
): { isTerminal(): boolean; readable: ReadableStream<Uint8Array> } {
  if (!ci || ci === "false" || ci === "0" || Deno.stdin.isTerminal()) return Deno.stdin;
  let piped = true;
  try {
    const stat = kind("/dev/stdin");
    piped = stat.isFile || stat.isFifo === true || isNullDevice(stat, kind);
  } catch { /* no /dev/stdin (Windows): read it as before */ }
  if (piped) return Deno.stdin;
  return { isTerminal: () => false, readable: new ReadableStream({ start: (c) => c.close() }) };
}

/** How long past --max-time the run may take to stop by itself before the process is ended. */
const MAX_TIME_GRACE_MS = 15_000;

/**
 * The grace; the tests of the backstop shorten it with
 * SKIFF_TEST_MAX_TIME_GRACE_MS (it can only be shortened, never lengthened).
 */
export function maxTimeGraceMs(shortened = Deno.env.get("SKIFF_TEST_MAX_TIME_GRACE_MS")): number {
  const value = Number(shortened);
  return shortened && Number.isFinite(value) && value >= 0
    ? Math.min(value, MAX_TIME_GRACE_MS)
    : MAX_TIME_GRACE_MS;
}

/**
 * The deadline already cuts a model request and a running command; this is
 * the backstop for anything that still does not return (a CI job must end),
 * exiting with the limit's code.
 */
function maxTimeWatchdog(
  maxSeconds: number | undefined,
): ReturnType<typeof setTimeout> | undefined {
  const grace = maxTimeGraceMs();
  if (!maxSeconds || maxSeconds * 1000 + grace > 2 ** 31 - 1) return undefined;
  const timer = setTimeout(() => {
    console.error(
      `skiff: --max-time ${maxSeconds} passed and the run did not stop within ` +
        `${grace / 1000} s more; ending the process (exit ${ExitCode.limit}).`,
    );
    Deno.exit(ExitCode.limit);
  }, maxSeconds * 1000 + grace);
  Deno.unrefTimer(timer);
  return timer;
}

/** Where the plan agent's measured criteria went (the host wrote them: src/host/start.ts). */
function doneNotice(done: DoneFile, file: string): void {
  const passing = done.criteria.filter((criterion) => criterion.current.passed).length;
  const notRun = done.criteria.filter((criterion) => criterion.current.not_run);
  const unmeasured = notRun.length ? `, ${notRun.length} not run` : "";
  const lines = [
    `skiff: wrote ${done.criteria.length} done criteria to ${file} (${passing} pass now${unmeasured}). ` +
    `Hold a run to them with: skiff run --done "…"`,
  ];
  for (const criterion of notRun) {
    // The model chose the command: it ran only if the plan agent's rules would run it unasked.
    const allow = criterion.current.allow_with
      ? ` To run it when proposed, plan again with: skiff run --agent plan ${
        shellLine(criterion.current.allow_with)
      } "…"`
      : " No flag lets the plan agent run it; check the command yourself before a --done run.";
    lines.push(
      `skiff: \`${criterion.command}\` was recorded, not run (${
        criterion.current.summary.replace(/^not run: /, "")
      }).${allow}`,
    );
  }
  console.error(neutraliseControls(lines.join("\n")));
}

/** An output file the user named, and the folder it may not be linked out of (host_write.ts). */
interface OutputFile {
  kind: "answer" | "summary";
  file: string;
  within: string | undefined;
}

/** `-o` and `--summary`, each with the folder it was named in: the current folder, the workspace, an --add-dir. */
function outputFiles(
  options: RunOptions,
  spec: { workspace: string; sandbox: { addDirs: string[] } },
): OutputFile[] {
  const folders = [Deno.cwd(), spec.workspace, ...spec.sandbox.addDirs];
  const named = (kind: OutputFile["kind"], file: string | undefined): OutputFile[] =>
    file ? [{ kind, file, within: namedWithin(file, folders) }] : [];
  return [
    ...named("answer", options.outputLastMessage),
    ...named("summary", options.summary),
  ];
}

/**
 * The final answer and the summary files, when asked for; a write that fails
 * is a failed run. A CI job publishes both (a PR body, the job page), so
 * token-shaped secrets are taken out first (contracts/redact.ts).
 */
async function writeOutputs(
  outputs: OutputFile[],
  result: { exitCode: number; sessionId: string; text: string },
  summary: RunSummary | undefined,
): Promise<number> {
  let exitCode = result.exitCode;
  for (const { kind, file, within } of outputs) {
    // The summary says how the run ended, a failed answer file included.
    const text = redactSecrets(
      kind === "answer" ? result.text : `${summary?.markdown(exitCode) ?? ""}\n`,
    );
    try {
      const written = await writeHostFile(file, text, { within });
      const notice = replacedLinkNotice(file, written);
      if (notice) console.error(notice);
    } catch (error) {
      const kept = `${kind === "answer" ? "The answer" : "The run"} is kept in the session: ` +
        `skiff sessions show ${result.sessionId}`;
      console.error(
        error instanceof HostWriteRefused
          ? `skiff: ${error.message}\n${error.hint} ${kept}`
          : `skiff: could not write ${kind === "answer" ? "the final answer" : "the summary"} ` +
            `to ${file} (${(error as Error).message}). ${kept}`,
      );
      exitCode = exitCode === ExitCode.ok ? ExitCode.failed : exitCode;
    }
  }
  return exitCode;
}
