/**
 * The contract every tool meets. A tool says what a call would touch
 * (`declare`, no side effects) before it is allowed to do it (`execute`), so
 * the policy decides while there is still nothing to undo.
 */
import type * as z from "zod";
import type { FileLedger } from "./files/file_ledger.ts";
import type { Access, ToolResult } from "../contracts/tool_call.ts";
import type { Todo } from "../contracts/todo.ts";
import type { ProcessLauncher } from "../contracts/process_launcher.ts";
import type { EditorFiles } from "../contracts/editor_files.ts";
import type { LanguageServers } from "../lsp/types.ts";

// The shared shapes live in src/contracts/ so lower layers need not import tools.
export type { Access, ToolErrorCode, ToolResult } from "../contracts/tool_call.ts";
export { ToolError } from "../contracts/tool_call.ts";
export type { Todo } from "../contracts/todo.ts";
export type { ProcessLauncher } from "../contracts/process_launcher.ts";

/** Snapshots the workspace around a command (src/undo/command_snapshots.ts). */
export interface CommandUndo {
  before(): Promise<() => Promise<void>>;
  /**
   * A command is coming: do, without waiting, the session's one-time work
   * and a first snapshot, so the command's `before` has little left to do.
   * Never throws.
   */
  warm?(): void;
}

/** Background processes started by `bash` with `background: true`. */
export interface BackgroundTable {
  start(command: string, cwd: string, signal?: AbortSignal): Promise<string>;
  output(
    id: string,
    waitMs?: number,
  ): Promise<{ output: string; exitCode: number | null; running: boolean }>;
  stop(id: string): Promise<{ output: string; exitCode: number | null }>;
  /** Stops every one, waits until their changes to protected paths are put back; the commands that ran. */
  stopAll(): Promise<string[]>;
}

/** What the read rules say of one file, asked without asking anyone. */
export interface ReadVerdict {
  action: "allow" | "ask" | "deny";
  /** The deciding rule in words: "read(.env): ask by default rule *.env". */
  reason: string;
  /** The deciding rule's pattern, when a rule decided. */
  pattern?: string;
}

/** Everything a tool may use. Passed in, so a test builds one without a store. */
export interface ToolContext {
  sessionId: string;
  callId: string;
  /** Absolute, realpath'd workspace root. */
  workspace: string;
  /** Extra folders the user allowed (`--add-dir`), absolute. */
  extraDirs: string[];
  /** skiff's data folder (spilled tool output lives under it). */
  dataDir: string;
  /** Paths the file tools refuse, as commands cannot see them (src/sandbox/hidden.ts). */
  hidden?: readonly string[];
  /**
   * The read rules' verdict on a file a search tool would open; grep leaves
   * out files that are not "allow". Absent: every file is searched.
   */
  readVerdict?: (real: string, display: string) => ReadVerdict;
  signal: AbortSignal;
  /** Read-before-edit state and undo snapshots. */
  files: FileLedger;
  todos: { get(): Todo[]; set(todos: Todo[]): void };
  launcher: ProcessLauncher;
  background: BackgroundTable;
  /**
   * The session's language servers, asked after a file tool changed files
   * (src/lsp/); absent: no diagnostics.
   */
  diagnostics?: LanguageServers;
  /**
   * The editor skiff runs inside, when it offers its buffers (`skiff acp`):
   * the file tools read and write text files through it
   * (src/tools/files/_editor_route.ts). Absent: disk.
   */
  editor?: EditorFiles;
  /** Network fetch; injected so tests never reach the network. */
  fetch: typeof fetch;
  /**
   * A host name's addresses (webfetch judges where a URL really goes by
   * them). Absent: the system's resolver (src/tools/web/_fetch_target.ts).
   */
  resolveHost?: (hostname: string, signal: AbortSignal) => Promise<string[]>;
  /**
   * Undo for commands: call `before` just before a command starts and the
   * function it returns once it has ended; what the command changed becomes
   * undo snapshots of the prompt (src/undo/command_snapshots.ts).
   */
  commandUndo?: CommandUndo;
  /**
   * Put more than the call declared to the same permission gate, mid-call
   * (webfetch: each redirect's new URL). Resolves when allowed, throws a
   * ToolError "denied" otherwise. Present in the context of a call the gate
   * allowed (src/engine/loop/tool_call.ts); where it is absent, nothing
   * beyond the declared access is allowed.
   */
  authorize?: (access: Access) => Promise<void>;
}

/** One tool. `schema` is the single source of the JSON schema sent to the model. */
export interface Tool<I = unknown> {
  name: string;
  description: string;
  schema: z.ZodType<I>;
  /**
   * A JSON schema to send to the model instead of the one generated from
   * `schema`. MCP tools set it: their schema comes from the server as JSON
   * and `schema` is then a passthrough.
   */
  jsonSchema?: Record<string, unknown>;
  declare(input: I, ctx: ToolContext): Access | Promise<Access>;
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
  /**
   * Starts, without waiting, work a call of this tool will need, so it runs
   * beside the rest: called as soon as a call is known to be coming (the
   * model began writing one, `skiff tool` was asked for this tool, the
   * pipeline admits one). Without a context (before any session), what
   * every call needs once per process (bash: the shell parser); with the
   * session's, also what the call needs in that session (bash: a sandbox
   * started, `ProcessLauncher.warm`). Called again and again: must be cheap
   * once begun, and never throw.
   */
  prepare?(ctx?: ToolContext): void;
}

/** Helps a tool file keep its input type tied to its schema. */
export function defineTool<S extends z.ZodType>(
  tool: Tool<z.infer<S>> & { schema: S },
): Tool<z.infer<S>> {
  return tool;
}
