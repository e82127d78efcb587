/**
 * Builds the pieces one session runs with — its tools, the permission gate,
 * the process launcher, the tool context — from an EngineSpec. Kept apart
 * from the engine so the wiring can be read in one place.
 */
import type { ToolSchema } from "../provider/types.ts";
import type { PermissionGate } from "../session/loop.ts";
import type { EventBodies, EventType } from "../session/events.ts";
import type { FileLedger } from "../tools/file_ledger.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";
import type { Session, Store } from "../store/store.ts";
import { builtinTools, parseToolInput, toolSchemas } from "../tools/registry.ts";
import { truncateOutput } from "../tools/truncate.ts";
import { BackgroundProcesses } from "../tools/background.ts";
import type { EngineIO, EngineSpec } from "./engine_types.ts";
import { buildGate } from "./gate.ts";
import { chooseSessionLauncher } from "./launcher.ts";

export interface SessionParts {
  tools: Tool[];
  schemas: ToolSchema[];
  gate: PermissionGate;
  warnings: string[];
  maxOutputTokens?: number;
  temperature?: number;
  context(callId: string, signal: AbortSignal): ToolContext;
  parseInput(tool: Tool, raw: string): unknown;
  truncate(output: string, callId: string): Promise<string>;
  close(): Promise<void>;
}

export interface PartsInput {
  spec: EngineSpec;
  store: Store;
  session: Session;
  ledger: FileLedger;
  io: EngineIO;
  emit<K extends EventType>(type: K, body: EventBodies[K]): void;
}

export async function buildSessionParts(input: PartsInput): Promise<SessionParts> {
  const { spec, store, session, ledger } = input;
  const warnings: string[] = [];
  const launcher = await chooseSessionLauncher(spec, input.io, warnings);
  const background = new BackgroundProcesses(launcher);
  const tools = builtinTools();
  const models = (spec.config.models ?? {}) as Record<string, { output?: number }>;
  const gate = buildGate(spec, input.io, input.emit);

  return {
    tools,
    schemas: toolSchemas(tools),
    gate,
    warnings,
    maxOutputTokens: models[spec.model]?.output,
    context: (callId, signal) => ({
      sessionId: session.id,
      callId,
      workspace: spec.workspace,
      extraDirs: spec.sandbox.addDirs,
      dataDir: spec.dataDir,
      signal,
      files: ledger,
      todos: {
        get: () => store.getTodos(session.id),
        set: (todos) => store.setTodos(session.id, todos),
      },
      launcher,
      background,
      fetch: globalThis.fetch,
    }),
    parseInput: parseToolInput,
    truncate: (output, callId) => truncateOutput(output, { callId, dataDir: spec.dataDir }),
    close: () => background.stopAll(),
  };
}
