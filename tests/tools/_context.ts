/**
 * A ToolContext for tool tests: a fresh temporary workspace (realpath'd), a
 * real FileLedger recording its snapshots, and fakes for the parts a file
 * tool never uses (launcher, background table, todos, fetch).
 */
import * as path from "node:path";
import { FileLedger, type SnapshotSink } from "../../src/tools/files/file_ledger.ts";
import type { Todo, Tool, ToolContext, ToolResult } from "../../src/tools/tool.ts";
import { ToolError } from "../../src/tools/tool.ts";

export interface TestWorkspace {
  ctx: ToolContext;
  root: string;
  /** Snapshots the ledger saved, in order. */
  snapshots: { turn: number; path: string; before: string | null }[];
  /** Absolute path of a workspace file. */
  at(relative: string): string;
  write(relative: string, content: string | Uint8Array): Promise<string>;
  readText(relative: string): Promise<string>;
  /** Run a tool the way the loop does: schema parse, then execute. */
  run<I>(tool: Tool<I>, input: unknown): Promise<ToolResult>;
  /** Run and expect a ToolError; returns it. */
  fail<I>(tool: Tool<I>, input: unknown): Promise<ToolError>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A ToolContext rooted at `root`, touching no file itself and starting no
 * process (for permission tests, the escape suite and the benchmarks).
 */
export function makeContext(
  root: string,
  sink?: SnapshotSink,
  options: { dataDir?: string } = {},
): ToolContext {
  let todos: Todo[] = [];
  return {
    sessionId: "test-session",
    callId: "call-1",
    workspace: root,
    extraDirs: [],
    dataDir: options.dataDir ?? path.join(root, ".skiff-data"),
    signal: new AbortController().signal,
    files: new FileLedger(sink),
    todos: { get: () => todos, set: (next) => (todos = next) },
    launcher: {
      prepare: () => Promise.reject(new Error("file tool tests start no processes")),
    },
    background: {
      start: () => Promise.reject(new Error("no background processes in file tool tests")),
      output: () => Promise.reject(new Error("no background processes in file tool tests")),
      stop: () => Promise.reject(new Error("no background processes in file tool tests")),
      stopAll: () => Promise.resolve([]),
    },
    fetch: () => Promise.reject(new Error("file tool tests never reach the network")),
  };
}

export async function makeWorkspace(): Promise<TestWorkspace> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-tools-" }));
  const snapshots: TestWorkspace["snapshots"] = [];
  const sink: SnapshotSink = {
    save(turn, file, before) {
      snapshots.push({
        turn,
        path: file,
        before: before ? new TextDecoder().decode(before) : null,
      });
    },
  };
  const ctx = makeContext(root, sink);
  const at = (relative: string) => path.join(root, relative);
  const workspace: TestWorkspace = {
    ctx,
    root,
    snapshots,
    at,
    async write(relative, content) {
      const file = at(relative);
      await Deno.mkdir(path.dirname(file), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(file, content);
      else await Deno.writeFile(file, content);
      return file;
    },
    readText: (relative) => Deno.readTextFile(at(relative)),
    async run(tool, input) {
      const parsed = tool.schema.parse(input);
      return await tool.execute(parsed, ctx);
    },
    async fail(tool, input) {
      try {
        const result = await workspace.run(tool, input);
        throw new Error(`expected ${tool.name} to fail, got: ${result.output}`);
      } catch (error) {
        if (error instanceof ToolError) return error;
        throw error;
      }
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
  return workspace;
}
