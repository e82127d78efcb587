/**
 * Text mode for `skiff run`: the answer streams to stdout, and each tool call
 * becomes one compact line on stderr (`✓ read src/app.ts (120 lines)`), so a
 * script can take stdout as the answer and a person still sees the work.
 * The model's reasoning is not printed: one line on stderr says how long it
 * was (`thought for 12 lines`). Everything written passes through `neutraliseControls`: the answer, titles,
 * commands and error messages come from the model and its tools.
 */
import type { Denial, EventBodies, SkiffEvent } from "../contracts/events.ts";
import { writeAll } from "./jsonl.ts";
import { neutraliseControls } from "./safe_text.ts";
import { shellLine } from "../permission/hints.ts";
import { diffBlock, wantsColour } from "./text_diff.ts";
import { describeInput, modelLabel } from "./tool_title.ts";
import { hookLines } from "./hook_line.ts";

export interface TextRendererOptions {
  quiet?: boolean;
  /** How often a still-running call is reported (ms); 0 turns it off. @default 15000 */
  progressEveryMs?: number;
  now?: () => number;
  stdout?: { writeSync(data: Uint8Array): number };
  stderr?: { writeSync(data: Uint8Array): number; isTerminal?: () => boolean };
  /** Colour the diffs of edits. @default stderr is a terminal and NO_COLOR is unset */
  colour?: boolean;
}

export function textRenderer(options: TextRendererOptions = {}): (event: SkiffEvent) => void {
  const stdout = options.stdout ?? Deno.stdout;
  const stderr = options.stderr ?? Deno.stderr;
  const note = (text: string) => writeAll(stderr, neutraliseControls(text));
  const colour = options.colour ?? wantsColour(stderr);
  let midLine = false;
  const out = (text: string) => {
    if (!text) return;
    writeAll(stdout, neutraliseControls(text));
    midLine = !text.endsWith("\n");
  };
  const endLine = () => {
    if (midLine) out("\n");
  };
  const inputs = new Map<string, unknown>();
  const now = options.now ?? Date.now;
  // Calls still running, reported now and then so a long command in a CI log
  // (or at a terminal) does not look like a hang.
  const running = new Map<string, { tool: string; since: number }>();
  const every = options.progressEveryMs ?? 15_000;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const report = () => {
    for (const [callId, call] of running) {
      const seconds = Math.round((now() - call.since) / 1000);
      const summary = oneLine(describeInput(inputs.get(callId)));
      note(`… ${call.tool}${summary ? ` ${summary}` : ""} (running ${seconds}s)\n`);
    }
  };
  // Lines of reasoning streamed since the answer or a call last appeared.
  let thoughtLines = 0;
  const endThinking = () => {
    if (thoughtLines === 0) return;
    if (!options.quiet) {
      endLine();
      note(`… thought for ${thoughtLines} line${thoughtLines === 1 ? "" : "s"}\n`);
    }
    thoughtLines = 0;
  };
  const stopTicker = () => {
    if (ticker !== undefined) clearInterval(ticker);
    ticker = undefined;
  };
  return (event) => {
    if (event.type === "reasoning.delta") {
      thoughtLines = Math.max(thoughtLines, 1) + (event.text.match(/\n/g)?.length ?? 0);
      return;
    }
    if (event.type !== "provider.retry") endThinking();
    switch (event.type) {
      case "tool.started":
        inputs.set(event.call_id, event.input);
        if (!options.quiet && every > 0) {
          running.set(event.call_id, { tool: event.tool, since: now() });
          if (ticker === undefined) {
            const timer = setInterval(report, every);
            Deno.unrefTimer(timer);
            ticker = timer;
          }
        }
        break;
      case "message.delta":
        out(event.text);
        break;
      case "message.completed":
        endLine();
        break;
      case "tool.completed":
        if (!options.quiet) {
          // Made safe piece by piece inside toolLine, before its own dimming.
          writeAll(
            stderr,
            toolLine(event, inputs.get(event.call_id), colour ? dimmed : plain) + "\n",
          );
          const diff = event.ok ? event.metadata?.diff : undefined;
          if (typeof diff === "string") {
            // Made safe line by line inside diffBlock, before its own colours.
            writeAll(stderr, diffBlock(diff, { colour, sessionId: event.session_id }));
          }
        }
        inputs.delete(event.call_id);
        running.delete(event.call_id);
        if (running.size === 0) stopTicker();
        break;
      case "provider.retry":
        if (!options.quiet) {
          note(
            `… retrying the model request in ${
              (event.delay_ms / 1000).toFixed(1)
            }s (${event.reason})\n`,
          );
        }
        break;
      case "context.compacted":
        if (!options.quiet) note(compactionLine(event) + "\n");
        break;
      case "verification.completed":
        // The gate's verdict (docs/verification.md), not the agent's claim.
        endLine();
        if (!options.quiet) {
          note(
            `check (cycle ${event.cycle} of ${event.max_cycles}): \`${event.command}\` ${
              event.passed
                ? "passed"
                : `failed (${
                  event.exit_code === null ? "did not finish" : `exit ${event.exit_code}`
                })`
            }\n`,
          );
        }
        break;
      case "hook.completed": {
        const { text, failed } = hookLines(event);
        // A failure is shown even with --quiet: something the user set did not work.
        if (failed || !options.quiet) note(`${text}\n`);
        break;
      }
      case "warning":
        note(`warning: ${event.message}\n`);
        break;
      case "error":
        endLine();
        note(`skiff: ${event.message}\n`);
        break;
      case "session.completed":
        stopTicker();
        endLine();
        // Shown even with --quiet: it is why the run exits 3.
        if (event.denials.length) note(denialSummary(event.denials));
        break;
    }
  };
}

/** Tokens as a person reads them: 41k, 950. */
function kiloTokens(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

/**
 * One line per compaction: "context: pruned 12 old tool outputs, 41k → 22k
 * tokens" or "context: summarised 30 earlier messages (…), 41k → 12k tokens".
 */
export function compactionLine(event: EventBodies["context.compacted"]): string {
  const tokens = `${kiloTokens(event.tokens_before)} → ${kiloTokens(event.tokens_after)} tokens`;
  const outputs = (count: number) => `${count} old tool output${count === 1 ? "" : "s"}`;
  const what = event.kind === "summary"
    ? `summarised ${event.replaced ?? "the"} earlier messages into a handoff${
      event.pruned ? ` and pruned ${outputs(event.pruned)}` : ""
    }`
    : `pruned ${outputs(event.pruned)}${event.fallback ? " (the summary was not used)" : ""}`;
  const why = event.trigger === "overflow"
    ? " after the endpoint said the request was too long"
    : "";
  return `context: ${what}${why}, ${tokens}`;
}

/**
 * Which calls were refused, why, and for each the arguments that would let
 * it through when added to the same command (proved by the gate before they
 * are offered), or that none would.
 */
export function denialSummary(denials: Denial[]): string {
  const lines = [
    `skiff: ${denials.length} call${denials.length === 1 ? " was" : "s were"} refused:`,
  ];
  for (const denial of denials) {
    const subject = denial.patterns.length ? ` ${firstLine(denial.patterns[0])}` : "";
    lines.push(`  ${denial.tool}${subject}`, `    why: ${firstLine(denial.reason, 400)}`);
    lines.push(
      denial.allow_with?.length
        ? `    ${ALLOW_WITH}${shellLine(denial.allow_with)}`
        : "    no flag allows it (a deny rule always wins)",
    );
  }
  return lines.join("\n") + "\n";
}

/** Printed before the arguments of each refused call's hint; tests read what follows. */
export const ALLOW_WITH = "to allow it, add to the command: ";

/**
 * `✓ read src/app.ts (120 lines)`, `✓ bash npm test (exit 0)`, or a failure:
 * `✗ bash npm test (exit 1)`, `✗ edit a.ts — no_match: …`. A command's exit
 * code is always shown, so a CI log tells a red run from a green one. The
 * line names what ran (src/ui/tool_title.ts); the model's own label for it
 * follows, marked (`# run the tests`), dimmed when `dim` colours.
 */
export function toolLine(
  event: Extract<SkiffEvent, { type: "tool.completed" }>,
  input?: unknown,
  dim: (text: string) => string = plain,
): string {
  const title = oneLine(event.title || describeInput(input));
  const named = title.startsWith(event.tool) ? title : `${event.tool}${title ? ` ${title}` : ""}`;
  const summary = neutraliseControls(named);
  const label = neutraliseControls(firstLine(modelLabel(input, title), 120));
  const after = label ? `  ${dim(label)}` : "";
  const exit = exitOf(event.metadata);
  if (event.ok && exit) return `${exit.failed ? "✗" : "✓"} ${summary} (${exit.text})${after}`;
  if (event.ok) return `✓ ${summary}${after}`;
  const error = event.error;
  const reason = neutraliseControls(
    error ? `${error.code}: ${firstLine(error.message)}` : "failed",
  );
  return `✗ ${summary}${after} — ${reason}`;
}

const plain = (text: string) => text;
const dimmed = (text: string) => `\x1b[2m${text}\x1b[22m`;

/** A title or argument on one line, cut: a line break shows as ⏎, so a second line is not hidden. */
function oneLine(text: string, limit = 200): string {
  const line = text.trim().replace(/\r?\n/g, " ⏎ ");
  return line.length > limit ? line.slice(0, limit - 1) + "…" : line;
}

/** How a command ended, from the bash tool's metadata, or null for other tools. */
function exitOf(
  metadata: Record<string, unknown> | undefined,
): { text: string; failed: boolean } | null {
  const code = metadata?.exitCode;
  const signal = metadata?.signal;
  if (typeof signal === "string" && signal) return { text: `killed by ${signal}`, failed: true };
  if (typeof code !== "number") return null;
  return { text: `exit ${code}`, failed: code !== 0 };
}

function firstLine(text: string, limit = 160): string {
  const line = text.split("\n")[0];
  return line.length > limit ? line.slice(0, limit - 3) + "…" : line;
}
