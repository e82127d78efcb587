/**
 * What a custom command's body becomes before it is sent. Claude Code's
 * `` !`command` `` runs, and its output takes the command's place; each
 * `@path` adds the file's content after the prompt. Both go through functions
 * the caller passes in, which in skiff are the session's own `bash` and `read`
 * tools: the same rules, approvals and sandbox as a model's call. A command
 * file grants nothing (its `allowed-tools` is not read), and a refused or
 * failed command or file becomes a note in the prompt, not an error.
 *
 * The template is cut into text and commands before the arguments are filled
 * in, so a typed argument can fill a command's `$1` but never start a command
 * of its own; only the `@path`s of the template and the typed arguments are
 * read, never one that a command printed.
 */
import { fillArguments, hasPlaceholders } from "./commands.ts";
import { fencedBlock } from "../lib/markdown_fence.ts";

/** What running a command or reading a file gave: its text, or why there is none. */
export type InlineResult =
  | { ok: true; text: string; exitCode?: number }
  | { ok: false; why: string };

/** How a command's `!` lines run and its `@path`s are read; skiff passes its tools' own path. */
export interface CommandPromptTools {
  runCommand(command: string): Promise<InlineResult>;
  readFile(file: string): Promise<InlineResult>;
  /** Whether `@word` names a file; a mention that does not (`@alice`) stays text. */
  isFile(file: string): boolean;
  /** True once the person stopped the turn: no further line runs and no file is read. */
  stopped?(): boolean;
}

export interface CommandPrompt {
  prompt: string;
  /** The commands run, in order, and those refused or failed. */
  ran: string[];
  refused: { what: string; why: string }[];
  attached: string[];
}

/** Longest output or file inlined, in characters; the rest is cut with a note. */
export const INLINE_LIMIT = 12_000;
/** More `!` lines or `@path`s than this in one command are left as written, with a note. */
export const MAX_INLINED = 16;

/** `` !`command` `` at a line's start or after a space or punctuation, on one line. */
const COMMAND_PATTERN = /(?<![\w`])!`([^`\n]+)`/g;
/** `@path` after a space or a line's start (an e-mail address is not one). */
const MENTION_PATTERN = /(?<![\w@`])@([^\s@`]+)/g;

type Part = { kind: "text"; text: string } | { kind: "command"; command: string };

/** The template's text and `` !`command` `` parts, arguments filled in after the cut. */
export function commandParts(body: string, args: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const match of body.matchAll(COMMAND_PATTERN)) {
    parts.push({ kind: "text", text: body.slice(last, match.index) });
    parts.push({ kind: "command", command: fillArguments(match[1], args).trim() });
    last = match.index + match[0].length;
  }
  parts.push({ kind: "text", text: body.slice(last) });
  const filled = parts.map((part) =>
    part.kind === "text" ? { ...part, text: fillArguments(part.text, args) } : part
  );
  // A template with no placeholder gets the arguments after it (expandCommand's rule).
  if (args && !hasPlaceholders(body)) filled.push({ kind: "text", text: `\n\n${args}` });
  return filled;
}

/** The `@path`s of a text, each once, trailing punctuation dropped; those inside `` !`…` `` are not. */
export function templateMentions(body: string): string[] {
  const found = new Set<string>();
  for (const match of body.replace(COMMAND_PATTERN, "").matchAll(MENTION_PATTERN)) {
    const mention = match[1].replace(/[.,;:!?)\]]+$/, "");
    if (mention) found.add(mention);
  }
  return [...found];
}

/**
 * The prompt a command sends: its `!` lines run in order, each replaced by
 * its output (and its exit code when not 0) or by a note saying why it did
 * not run; then each file its template or arguments mention, after the prompt.
 */
export async function buildCommandPrompt(
  body: string,
  args: string,
  tools: CommandPromptTools,
): Promise<CommandPrompt> {
  const result: CommandPrompt = { prompt: "", ran: [], refused: [], attached: [] };
  const out: string[] = [];
  let commands = 0;
  let afterBlock = false;
  for (const part of commandParts(body, args)) {
    if (part.kind === "text") {
      // A block ends its line already; the template's own line break is not doubled.
      out.push(afterBlock ? part.text.replace(/^[ \t]*\n/, "") : part.text);
      afterBlock = false;
      continue;
    }
    if (tools.stopped?.()) {
      out.push(`(\`${part.command}\` not run: stopped)`);
      continue;
    }
    if (++commands > MAX_INLINED) {
      out.push(`!\`${part.command}\` (not run: a command runs at most ${MAX_INLINED})`);
      continue;
    }
    const ran = await tools.runCommand(part.command);
    if (!ran.ok) {
      result.refused.push({ what: part.command, why: ran.why });
      out.push(`(\`${part.command}\` did not run: ${oneLine(ran.why)})`);
      continue;
    }
    result.ran.push(part.command);
    const exit = ran.exitCode ? `\n(exit code ${ran.exitCode})` : "";
    out.push(`${out.pop()?.trimEnd() ?? ""}\n${fencedBlock(bounded(ran.text.trimEnd()))}${exit}\n`);
    afterBlock = true;
  }
  const blocks: string[] = [];
  let files = 0;
  for (const mention of templateMentions(`${body}\n${args}`)) {
    if (tools.stopped?.() || !tools.isFile(mention)) continue;
    if (++files > MAX_INLINED) {
      blocks.push(
        `(The file ${mention} was not attached: a command attaches at most ${MAX_INLINED})`,
      );
      continue;
    }
    const read = await tools.readFile(mention);
    if (read.ok) {
      result.attached.push(mention);
      blocks.push(`<file path="${mention}">\n${bounded(read.text)}\n</file>`);
    } else {
      result.refused.push({ what: `@${mention}`, why: read.why });
      blocks.push(`(The file ${mention} was mentioned but not attached: ${oneLine(read.why)})`);
    }
  }
  const text = out.join("").trim();
  result.prompt = blocks.length ? `${text}\n\n${blocks.join("\n\n")}` : text;
  return result;
}

function bounded(text: string): string {
  if (text.length <= INLINE_LIMIT) return text;
  return `${text.slice(0, INLINE_LIMIT)}\n… (${
    text.length - INLINE_LIMIT
  } more characters not inlined)`;
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, " ");
}
