/**
 * The bash tool: one shell command, run through the session's launcher (the
 * OS sandbox when there is one) in its own process group, stdout and stderr
 * merged as they arrive. A timeout or a cancel stops the whole group, not just
 * the shell, so nothing the command started keeps running. Long output is
 * spilled to a file as it streams, so memory stays bounded.
 */
import * as z from "zod";
import { alwaysPatterns } from "../../permission/always.ts";
import { ensureShellParser } from "../../permission/shell/shell_parser.ts";
import { displayPath, resolveWorkspacePath } from "../../sandbox/paths.ts";
import { startGroup } from "./_process_group.ts";
import { ProgramUnavailable } from "../../lib/spawn.ts";
import { OutputSpool } from "../truncate.ts";
import { plainTerminalText } from "./_terminal_text.ts";
import { OutputBytes } from "./_output_bytes.ts";
import { defineTool, type ToolContext, ToolError } from "../tool.ts";
import { commandShell } from "../../sandbox/shell.ts";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;

/** The shell the launchers run commands with, as the session's chooser finds it. */
const SHELL = commandShell();

const schema = z.lazy(() =>
  z.object({
    command: z.string().min(1).describe(`The shell command to run with \`${SHELL.name} -c\`.`),
    timeout_ms: z.number().int().positive().max(MAX_TIMEOUT_MS).optional().describe(
      `Stop the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}). The command and every process it started are killed.`,
    ),
    cwd: z.string().optional().describe(
      "Folder to run in, relative to the workspace root (default: the workspace root). Prefer this over `cd dir && …`.",
    ),
    description: z.string().optional().describe(
      "A few words saying what the command does, shown to the user (e.g. 'Run the unit tests').",
    ),
    background: z.boolean().optional().describe(
      "Start the command and return an id at once instead of waiting, for servers and watchers. Read its output or stop it with the `process` tool.",
    ),
  })
);

export const bashTool = defineTool({
  name: "bash",
  description: [
    "Run a shell command in the workspace and return its combined stdout and stderr, followed by the exit code.",
    "- Use it for builds, tests, git, package managers and other programs; prefer the read, glob, grep and list tools for looking at files.",
    SHELL.name === "bash"
      ? "- The command runs with `bash -c` (bash syntax works: `[[ ]]`, arrays, `set -o pipefail`); quote paths that contain spaces. Use `cwd` instead of `cd`."
      : "- The command runs with `sh -c` (bash is not installed here: write POSIX sh, no `[[ ]]` or arrays); quote paths that contain spaces. Use `cwd` instead of `cd`.",
    "- Commands that never finish on their own (servers, watchers) need `background: true`; otherwise they are killed at the timeout.",
    "- Interactive programs get no input (stdin is empty); pass flags such as --yes or --no-pager.",
    "- Long output is cut to its beginning and end; the full text is saved to a file named in the output.",
  ].join("\n"),
  schema,
  // The policy judges every command with the shell parser, whose first load is slow;
  // a session sandbox takes a while to start (bubblewrap's, or a Landlock holder), and the
  // session's first undo snapshot three git runs.
  prepare: (ctx) => {
    void ensureShellParser();
    ctx?.launcher.warm?.();
    ctx?.commandUndo?.warm?.();
  },
  async declare(input, ctx) {
    await ensureShellParser(); // alwaysPatterns splits the command with it
    const cwd = resolveCwd(input.cwd, ctx);
    const where = cwd.display === "." ? "" : ` (in ${cwd.display})`;
    return {
      key: "bash",
      patterns: [input.command],
      commands: [input.command],
      always: alwaysPatterns(input.command),
      preview: `$ ${input.command}${where}${input.background ? "  [background]" : ""}`,
    };
  },
  async execute(input, ctx) {
    const cwd = resolveCwd(input.cwd, ctx);
    if (!cwd.inside) {
      throw new ToolError(
        "bad_input",
        `cwd "${input.cwd}" is outside the workspace (${ctx.workspace}).`,
        "Run commands in the workspace or a folder added with --add-dir.",
      );
    }
    await requireFolder(cwd.real, input.cwd ?? ".");
    // What ran, never the model's description of it (src/ui/tool_title.ts).
    const title = commandTitle(input.command);
    if (input.background) {
      const id = await ctx.background.start(input.command, cwd.real).catch((error) => {
        throw startFailure(error);
      });
      return {
        output:
          `Started in the background with id ${id}. Read its output with the process tool ({"id": "${id}", "action": "output"}) and stop it with action "stop".`,
        title,
        metadata: { background: true, id },
      };
    }
    return await runForeground(
      input.command,
      cwd.real,
      input.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      ctx,
      title,
    );
  },
});

async function runForeground(
  command: string,
  cwd: string,
  timeoutMs: number,
  ctx: ToolContext,
  title: string,
) {
  // Room for the status lines, so the loop's own truncation never cuts again.
  const spool = new OutputSpool({
    callId: ctx.callId,
    sessionId: ctx.sessionId,
    dataDir: ctx.dataDir,
    limit: 29_500,
  });
  const printed = new OutputBytes();
  const undoAfter = await ctx.commandUndo?.before();
  const guardCheck = ctx.launcher.guard?.before();
  const group = await startGroup({
    launcher: ctx.launcher,
    command,
    cwd,
    onOutput: (text, bytes) => {
      spool.append(text, bytes);
      printed.add(text, bytes);
    },
  }).catch((error) => {
    throw startFailure(error);
  });

  let ended: "timeout" | "cancelled" | null = null;
  const onAbort = () => {
    ended ??= "cancelled";
    void group.stop();
  };
  const timer = setTimeout(() => {
    ended ??= "timeout";
    void group.stop();
  }, timeoutMs);
  if (ctx.signal.aborted) onAbort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const exit = await group.done.finally(() => {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  });
  // Files that run code later, changed by the command, are put back first.
  const reverted = guardCheck?.() ?? null;
  // Then what it changed becomes undo snapshots of this prompt.
  await undoAfter?.();
  const revertedNote = reverted ? `${reverted}\n` : "";

  // The spill file keeps the bytes as printed; the model reads what a screen would show.
  const output = plainTerminalText(spool.finish());
  const metadata = {
    exitCode: exit.code,
    ...(exit.signal ? { signal: exit.signal } : {}),
    ...(spool.cut ? { truncated: true } : {}),
    ...(spool.spilled ? { fullOutputPath: spool.file } : {}),
    // The output's notice says it too; the event carries it for the user and the logs.
    ...(spool.notKept !== null ? { outputNotKept: spool.notKept } : {}),
    ...(printed.binary ? { binary: true } : {}),
    ...(exit.strayStopped ? { strayProcessesStopped: true } : {}),
  };
  const shown =
    (output.length ? (output.endsWith("\n") ? output : `${output}\n`) : "(no output)\n") +
    printed.note(spool.spilled ? spool.file : undefined);
  if (ended === "timeout") {
    throw new ToolError(
      "timeout",
      `Command timed out after ${timeoutMs} ms; it and every process it started were stopped.\nOutput so far:\n${shown}${revertedNote}`,
      "Raise timeout_ms (at most 600000), or run long-lived commands with background: true.",
      { ...metadata, timedOut: true },
    );
  }
  if (ended === "cancelled") {
    throw new ToolError(
      "failed",
      `Command cancelled; it and every process it started were stopped.\nOutput so far:\n${shown}${revertedNote}`,
      undefined,
      { ...metadata, cancelled: true },
    );
  }
  const stray = exit.strayStopped
    ? "Processes the command left running in the background were stopped; use background: true for those.\n"
    : "";
  if (reverted) {
    throw new ToolError(
      "denied",
      `${shown}${stray}exit code: ${exit.code}\n${reverted}`,
      "Do not retry this with a command. Make such a change with the write or edit tool, which asks the user, or leave it to the user.",
      { ...metadata, reverted: true },
    );
  }
  return {
    output: `${shown}${stray}exit code: ${exit.code}`,
    title,
    metadata,
  };
}

/** A process that could not even start, as an error the model can read. */
export function startFailure(thrown: unknown): unknown {
  // The spawner's error carries Deno's own, whose message tells a missing folder apart.
  const error = thrown instanceof ProgramUnavailable ? thrown.cause : thrown;
  if (error instanceof Deno.errors.NotCapable) {
    return new ToolError(
      "not_capable",
      `This session may not start processes: ${error.message}`,
      "Running commands is not permitted here; do the work with the file tools instead.",
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    // The same error class covers a missing program and a working folder that
    // is not there (or not a folder): the hint names the one that happened.
    const folder = /\bcwd\b/.test(error.message);
    return new ToolError(
      "failed",
      `The shell could not be started: ${error.message}`,
      folder
        ? "The working folder of the command is missing or is not a folder; run it in a folder that exists."
        : "The sandbox or shell program is missing on this machine; tell the user.",
    );
  }
  return error;
}

function resolveCwd(cwd: string | undefined, ctx: ToolContext) {
  const resolved = resolveWorkspacePath(ctx.workspace, cwd ?? ".", ctx.extraDirs);
  return { ...resolved, display: displayPath(resolved) };
}

async function requireFolder(real: string, asked: string): Promise<void> {
  const info = await Deno.stat(real).catch(() => null);
  if (!info?.isDirectory) {
    throw new ToolError(
      "not_found",
      `cwd "${asked}" is not an existing folder.`,
      "Give a folder that exists, relative to the workspace root; list shows what is there.",
    );
  }
}

/** The command on one line: a line break shows as ⏎, so what follows the first line is not hidden. */
function commandTitle(command: string): string {
  const line = command.trim().replace(/\r?\n/g, " ⏎ ");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
