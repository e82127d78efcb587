/**
 * The session engine: everything between "here is a prompt" and "here are
 * the events". It owns the store, the provider, the tools and the policy gate
 * for one session, and talks to the outside only through `EngineIO` — the
 * same code runs in-process or inside the permission-restricted Worker.
 */
import type { ChatProvider } from "../provider/types.ts";
import type { Denial, EventBodies, EventType, SkiffEvent } from "../contracts/events.ts";
import { addUsage, emptyUsage, makeEvent } from "../contracts/events.ts";
import { type StoredMessage, toChatHistory } from "../session/history.ts";
import { collectInstructions, renderSystemPrompt } from "../session/system_prompt.ts";
import { gitSummary } from "../session/git_summary.ts";
import { type LoopOutcome, runLoop } from "../session/loop.ts";
import { runToolCall } from "../session/tool_call.ts";
import { type Tool, type ToolContext, ToolError } from "../tools/tool.ts";
import type { SubagentRunRequest, SubagentRunResult } from "../tools/session/mod.ts";
import { isWithin } from "../sandbox/paths.ts";
import { FileLedger, hashContent } from "../tools/files/mod.ts";
import { ABSENT } from "../store/snapshots.ts";
import { LINK_MODE } from "../session/undo.ts";
import { pruneToolOutput } from "../store/tool_output.ts";
import { isStoredEvent, storeRecorder } from "./recorder.ts";
import type { EngineIO, EngineSpec, RunRequest, ToolCallResult } from "./engine_types.ts";
import { buildSessionParts, type SessionParts } from "./session_parts.ts";
import type { Session, Store } from "../store/store.ts";
import { ExitCode } from "../cli/exit_codes.ts";

export interface RunResult {
  exitCode: number;
  sessionId: string;
  text: string;
}

export class Engine {
  #parts?: SessionParts;
  #session?: Session;
  #ledger?: FileLedger;
  #abort = new AbortController();
  #deadline?: number;
  /** Shown once, after session.started (or before the first tool call). */
  #warnings: string[] = [];

  constructor(
    private readonly spec: EngineSpec,
    private readonly io: EngineIO,
    private readonly store: Store,
    private readonly provider?: ChatProvider,
    /** Tools a parent lends its subagents (its MCP servers' tools). */
    private readonly sharedTools: Tool[] = [],
    /**
     * Where a subagent files its undo snapshots: the top-level session and
     * its prompt, so `skiff undo` of that prompt also puts back what the
     * subagent changed.
     */
    private readonly undoInto?: { sessionId: string; turn: number },
  ) {}

  abort(): void {
    this.#abort.abort();
  }

  #emit = <K extends EventType>(type: K, body: EventBodies[K]) => {
    const event = makeEvent(type, this.#session!.id, body) as SkiffEvent;
    if (isStoredEvent(event)) this.store.appendEvent(event);
    this.io.event(event);
  };

  /** Open (or create) the session and build its tools; returns warnings to show. */
  async open(sessionId?: string): Promise<Session> {
    const spec = this.spec;
    this.#session = sessionId ? this.store.getSession(sessionId)! : this.store.createSession({
      workspace: spec.workspace,
      model: spec.model,
      agent: spec.agent,
      parentId: spec.parentId,
      title: spec.title,
      holder: spec.run,
    });
    const session = this.#session;
    if (spec.depth === 0) {
      // Spilled output of old sessions; this one's is kept whatever its age.
      const limits = (spec.config as { toolOutput?: { maxAgeDays?: number; maxMB?: number } })
        .toolOutput;
      pruneToolOutput(spec.dataDir, { ...limits, keep: [session.id] });
    }
    const undoInto = this.undoInto;
    this.#ledger = new FileLedger(
      {
        save: (turn, path, before) => {
          const target = undoInto ?? { sessionId: session.id, turn };
          const mode = before === null ? null : modeOf(path);
          this.store.snapshots.save(target.sessionId, target.turn, path, before, mode);
        },
      },
      this.store.getFileReads(session.id),
    );
    // Undo works per prompt: snapshots are filed under the prompt's number.
    const stored = this.store.loadHistory(session.id) as StoredMessage[];
    this.#ledger.beginTurn(stored.filter((message) => message.role === "user").length + 1);
    this.#parts = await buildSessionParts({
      spec,
      store: this.store,
      session,
      ledger: this.#ledger,
      io: this.io,
      emit: this.#emit,
      subagents: { run: (request) => this.#runSubagent(request) },
      sharedTools: this.sharedTools,
      recordCommandChanges: (changes) => {
        // Filed like the ledger's snapshots: a subagent's under its parent's prompt.
        const target = undoInto ?? { sessionId: session.id, turn: this.#ledger!.turn };
        for (const change of changes) {
          this.store.snapshots.save(
            target.sessionId,
            target.turn,
            change.path,
            change.before,
            change.mode,
          );
        }
      },
    });
    this.#warnings = [...(spec.depth === 0 ? spec.warnings : []), ...this.#parts.warnings];
    return session;
  }

  get tools(): Tool[] {
    return this.#parts?.tools ?? [];
  }

  #context(callId: string, signal: AbortSignal): ToolContext {
    return this.#parts!.context(callId, signal);
  }

  /** One prompt, run to the end. */
  async run(request: RunRequest): Promise<RunResult> {
    this.#deadline = request.deadline;
    const session = this.#session!;
    const parts = this.#parts!;
    const ledger = this.#ledger!;
    const stored = this.store.loadHistory(session.id) as StoredMessage[];
    if (!session.title) {
      const title = request.prompt.trim().split("\n")[0].slice(0, 80);
      this.store.updateSession(session.id, { title });
      session.title = title;
    }
    this.#emit("session.started", {
      workspace: this.spec.workspace,
      model: this.spec.model,
      agent: this.spec.agent,
      resumed: stored.length > 0,
      ...(this.spec.parentId ? { parent_id: this.spec.parentId } : {}),
    });
    this.#flushWarnings();

    const recorder = storeRecorder(this.store, session.id);
    const onToolResult = recorder.toolResult;
    recorder.toolResult = (part) => {
      onToolResult(part);
      this.store.saveFileReads(session.id, ledger.entries());
    };
    // Kept here too, so a run that ends in an internal error still reports them.
    const spent = { usage: emptyUsage(), turns: 0 };
    const onStepUsage = recorder.stepUsage;
    recorder.stepUsage = (usage) => {
      onStepUsage(usage);
      addUsage(spent.usage, usage);
      spent.turns++;
    };
    let outcome: LoopOutcome;
    try {
      outcome = await runLoop(
        {
          provider: this.provider!,
          tools: parts.tools,
          schemas: parts.schemas,
          gate: parts.gate,
          recorder,
          emit: this.#emit,
          context: (callId, signal) => this.#context(callId, signal),
          parseInput: parts.parseInput,
          truncate: parts.truncate,
          turnsSoFar: session.turns,
        },
        {
          model: this.spec.model,
          systemPrompt: await this.#systemPrompt(),
          history: toChatHistory(stored),
          prompt: request.prompt,
          maxTurns: request.maxTurns,
          maxOutputTokens: parts.maxOutputTokens,
          temperature: parts.temperature,
          deadline: request.deadline,
          signal: this.#abort.signal,
        },
      );
    } catch (error) {
      // A bug, not an outcome of the run; still end the stream the way
      // docs/events.md promises: error, then session.completed last.
      const message = error instanceof Error ? error.message : String(error);
      this.#emit("error", { code: "internal", message, exit_code: ExitCode.failed });
      this.store.updateSession(session.id, { status: "failed" });
      this.#recordUndoAfterState();
      this.#emit("session.completed", {
        text: "",
        usage: spent.usage,
        turns: spent.turns,
        exit_code: ExitCode.failed,
        denials: parts.gate.denials(),
      });
      return { exitCode: ExitCode.failed, sessionId: session.id, text: "" };
    }
    this.#recordUndoAfterState();
    return this.#finish(outcome, parts.gate.denials());
  }

  /** A child session for the task tool: its own history, never more rights than this one. */
  async #runSubagent(request: SubagentRunRequest): Promise<SubagentRunResult> {
    const parentOwns = this.spec.owns;
    const owns = request.owns.length
      ? request.owns.filter((path) =>
        !parentOwns.length || parentOwns.some((owned) => isWithin(owned, path))
      )
      : parentOwns;
    if (request.owns.length && !owns.length) {
      throw new ToolError(
        "denied",
        `this session may only write ${parentOwns.join(", ")}; a subagent cannot own more.`,
      );
    }
    const childSpec: EngineSpec = {
      ...this.spec,
      agent: request.agent.name,
      model: request.agent.model ?? this.spec.model,
      depth: this.spec.depth + 1,
      parentId: this.#session!.id,
      title: request.description,
      inheritedPermission: [
        ...this.spec.inheritedPermission,
        this.#parts!.agent.permission as Record<string, unknown>,
      ],
      owns,
      mcp: { enabled: false, env: {}, blocked: [] },
    };
    // Child events go to the store under the child's id, not to the terminal.
    const child = new Engine(
      childSpec,
      { event: () => {}, ask: (question) => this.io.ask(question) },
      this.store,
      this.provider,
      this.#parts!.mcpTools,
      this.undoInto ?? { sessionId: this.#session!.id, turn: this.#ledger!.turn },
    );
    const stop = () => child.abort();
    // The parent may already be stopping: an event that fired before we
    // listened would never reach the child.
    if (request.signal.aborted) stop();
    request.signal.addEventListener("abort", stop, { once: true });
    try {
      const session = await child.open();
      const result = await child.run({
        prompt: request.prompt,
        maxTurns: request.agent.maxTurns,
        deadline: this.#deadline,
      });
      if (result.exitCode !== ExitCode.ok && !result.text) {
        throw new ToolError(
          "failed",
          `the ${request.agent.name} subagent stopped without an answer (exit ${result.exitCode}); its session is ${session.id}.`,
        );
      }
      // A child stopped by a limit or Ctrl-C may have said something on the
      // way; the parent must not take it for a finished answer.
      const text = result.exitCode === ExitCode.ok || result.exitCode === ExitCode.denied
        ? result.text
        : `${result.text}\n\n(The ${request.agent.name} subagent stopped before finishing (exit ${result.exitCode}); this answer may be incomplete. Its session is ${session.id}.)`;
      return {
        sessionId: session.id,
        text,
        filesRead: child.#ledger!.entries().map(([path]) => path),
        filesWritten: child.#ledger!.writtenPaths(),
      };
    } finally {
      request.signal.removeEventListener("abort", stop);
      await child.close();
    }
  }

  async #systemPrompt(): Promise<string> {
    return renderSystemPrompt({
      workspace: this.spec.workspace,
      date: new Date(),
      platform: `${Deno.build.os} ${Deno.build.arch}`,
      gitSummary: await gitSummary(this.spec.workspace, this.#parts!.helperCommands),
      instructions: collectInstructions(this.spec.workspace, this.spec.configDir),
      agentPrompt: this.#parts!.agentPrompt,
    });
  }

  /**
   * What this prompt left each changed file as, so `skiff undo` can tell
   * skiff's own state from later changes (a subagent's files are in its
   * parent's prompt, which records them when it ends).
   */
  #recordUndoAfterState(): void {
    if (this.undoInto) return;
    const sessionId = this.#session!.id;
    const turn = this.#ledger!.turn;
    for (const snapshot of this.store.snapshots.forTurn(sessionId, turn)) {
      this.store.snapshots.recordAfter(sessionId, turn, snapshot.path, currentState(snapshot.path));
    }
  }

  #finish(outcome: LoopOutcome, denials: Denial[]): RunResult {
    const session = this.#session!;
    // Everything so far is stored: say how to pick the work up again (a
    // subagent's session is continued through its parent, not by hand).
    const resume = this.spec.depth === 0
      ? `. Continue with: skiff run --session ${session.id} "…"`
      : "";
    let exitCode: number = ExitCode.ok;
    switch (outcome.kind) {
      case "completed":
        exitCode = denials.length ? ExitCode.denied : ExitCode.ok;
        break;
      case "limit":
        exitCode = ExitCode.limit;
        this.#emit("error", {
          code: "limit",
          message: `${outcome.reason}${resume}`,
          exit_code: exitCode,
        });
        break;
      case "interrupted":
        exitCode = ExitCode.interrupted;
        this.#emit("error", {
          code: "interrupted",
          message: `interrupted${resume}`,
          exit_code: exitCode,
        });
        break;
      case "provider_error":
        exitCode = ExitCode.provider;
        this.#emit("error", {
          code: "provider",
          message: outcome.error.message,
          exit_code: exitCode,
        });
        break;
      case "failed":
        exitCode = ExitCode.failed;
        this.#emit("error", { code: "failed", message: outcome.message, exit_code: exitCode });
        break;
    }
    const status = exitCode === ExitCode.ok ? "completed" : outcome.kind;
    this.store.updateSession(session.id, { status });
    this.#emit("session.completed", {
      text: outcome.text,
      usage: outcome.usage,
      turns: outcome.turns,
      exit_code: exitCode,
      denials,
    });
    return { exitCode, sessionId: session.id, text: outcome.text };
  }

  #flushWarnings(): void {
    for (const message of this.#warnings) this.#emit("warning", { message });
    this.#warnings = [];
  }

  /**
   * One tool call without a model (`skiff tool`), through the loop's own
   * path: the same rules, and the same events in the session's log (turn 0:
   * no model turn asked for it).
   */
  async runTool(name: string, input: unknown): Promise<ToolCallResult> {
    const parts = this.#parts!;
    const session = this.#session!;
    this.#flushWarnings();
    const tools = new Map(parts.tools.map((tool) => [tool.name, tool]));
    if (tools.has(name)) this.#titleToolSession(name);
    const call = {
      id: `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
      name,
      arguments: JSON.stringify(input ?? {}),
    };
    const part = await runToolCall(
      {
        tools,
        gate: parts.gate,
        emit: this.#emit,
        context: (callId, signal) => this.#context(callId, signal),
        parseInput: parts.parseInput,
        truncate: parts.truncate,
        // No model reads a history here: only what the ledger learnt is kept.
        record: () => this.store.saveFileReads(session.id, this.#ledger!.entries()),
      },
      call,
      0,
      this.#abort.signal,
    );
    this.#recordUndoAfterState();
    return part.ok
      ? { tool: name, ok: true, output: part.output, metadata: part.metadata ?? {} }
      : { tool: name, ok: false, output: "", error: part.error, metadata: {} };
  }

  /** A `skiff tool` session is titled by the tools it ran: "skiff tool: read, edit". */
  #titleToolSession(name: string): void {
    const session = this.#session!;
    const prefix = "skiff tool: ";
    const names = session.title.startsWith(prefix)
      ? session.title.slice(prefix.length).split(", ")
      : [];
    if (names.includes(name) || session.title.length > 80) return;
    const title = `${prefix}${[...names, name].join(", ")}`;
    this.store.updateSession(session.id, { title });
    session.title = title;
  }

  async close(): Promise<void> {
    // A `skiff tool` batch has no outcome of its own: it ends when its calls are done.
    if (this.#session && this.spec.agent === "tool") {
      this.store.updateSession(this.#session.id, { status: "completed" });
    }
    await this.#parts?.close();
  }
}

/** Permission bits of an existing file, for undo to restore; null when unreadable. */
function modeOf(path: string): number | null {
  try {
    // A link is kept as a link (its text is the snapshot's content), not as
    // a copy of the file it points to.
    if (Deno.lstatSync(path).isSymlink) return LINK_MODE;
    const mode = Deno.statSync(path).mode;
    return mode === null ? null : mode & 0o7777;
  } catch {
    return null;
  }
}

/** A file's content hash, or ABSENT when nothing (or no file) is there. */
function currentState(path: string): string {
  try {
    return hashContent(Deno.readFileSync(path));
  } catch {
    return ABSENT;
  }
}
