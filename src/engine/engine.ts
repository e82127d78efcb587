/**
 * The session engine: everything between "here is a prompt" and "here are
 * the events". It owns the store, the provider, the tools and the policy gate
 * for one session, and talks to the outside only through `EngineIO` — the
 * same code runs in-process or inside the permission-restricted Worker.
 */
import type { ChatMessage, ChatProvider } from "../provider/types.ts";
import type { SkiffEvent } from "../contracts/events.ts";
import { makeEvent } from "../contracts/events.ts";
import { type StoredMessage, toChatHistory } from "./loop/history.ts";
import { compactionSettings } from "./context/plan.ts";
import { userWords } from "./context/summary.ts";
import { resolveModelLimits } from "../provider/model_limits.ts";
import { collectInstructions, renderSystemPrompt } from "./loop/system_prompt.ts";
import { gitSummary } from "./loop/git_summary.ts";
import { memoryPromptSection } from "./loop/memory_prompt.ts";
import { type LoopOutcome, runLoop } from "./loop/loop.ts";
import { runToolCall } from "./loop/tool_call.ts";
import { type Tool, ToolError } from "../tools/tool.ts";
import {
  harnessDeps,
  recordVerification,
  type SubagentRunRequest,
  type SubagentRunResult,
} from "../tools/session/mod.ts";
import { isWithin } from "../sandbox/paths.ts";
import { PRUNE_EVERY_MS, pruneToolOutput } from "../store/tool_output.ts";
import { isStoredEvent } from "./recorder.ts";
import { PromptRun, recordUndoAfterState, type SpendLimits } from "./prompt_run.ts";
import { undoStateOf } from "../undo/undo.ts";
import { EditorWrites } from "../undo/editor_writes.ts";
import { sweepTempFiles } from "../undo/temp_sweep.ts";
import { type Emit, EngineSession, undoLedger } from "./opened_session.ts";
import type { EngineIO, EngineSpec, RunRequest, ToolCallOptions, ToolCallResult } from "./types.ts";
import { buildSessionParts, type SessionParts } from "./session_parts.ts";
import type { AvailableSandboxes } from "../sandbox/choose.ts";
import type { Session, Store } from "../store/store.ts";
import { type ExitCodes, reportOutcome, type RunResult } from "./run_outcome.ts";
import { compactSession, describeCompaction } from "./compact_session.ts";
import type { McpServerStatus } from "../mcp/manager.ts";
import { attributeFailure } from "./attribution.ts";
import type { VerificationSummary } from "../contracts/events.ts";
import { runCheckCommand, stopBackground, untilChecks } from "./verify/verify.ts";
import { runCycles } from "./verify/cycles.ts";
import { measureProposals, projectCheckRefusal } from "./verify/done_criteria.ts";
import { bashTool } from "../tools/process/bash.ts";
import {
  notificationHooks,
  promptHooks,
  sessionEndHooks,
  stopHooks,
} from "../hooks/session_events.ts";

export type { RunResult };
export { startSandboxProbe } from "./session_parts.ts";
export { prepareTool } from "../tools/registry.ts";

export class Engine {
  #opened?: EngineSession;
  /** The prompt (or `skiff tool` call) running now; an abort reaches it. */
  #current?: PromptRun;
  /** Calls without a model now running that a caller may stop alone, by their `cancelId`. */
  readonly #cancellable = new Map<string, PromptRun>();
  /** The last of the tool calls asked to run in order (`runTool`'s `inOrder`). */
  #ordered: Promise<unknown> = Promise.resolve();
  /** Aborted while no prompt ran (Ctrl-C while opening): the next one stops at once. */
  #abortNext = false;
  /** Shown once, after session.started (or before the first tool call). */
  #warnings: string[] = [];
  /**
   * Instruction-file warnings already given: the system prompt is built again
   * for every prompt, and a skipped AGENTS.md is told once per session.
   */
  #instructionWarnings = new Set<string>();
  /** The git summary begun while the session opened, for the prompt sent right after (taken once). */
  #openingGitSummary?: Promise<string | null>;
  /** The SessionStart hooks ran (before the first prompt): SessionEnd runs at close. */
  #hooksStarted = false;

  readonly #editorWrites = new EditorWrites();

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
    private readonly undoInto?: { sessionId: string; prompt: number },
  ) {
    // What the editor took may stay unsaved: undo compares against it, not disk.
    if (io.editor?.write) this.io = { ...io, editor: this.#editorWrites.remembering(io.editor) };
  }

  /** Stops the running prompt; with none running, the next one. */
  abort(): void {
    if (this.#current) this.#current.abort();
    else this.#abortNext = true;
  }

  #requireOpen(): EngineSession {
    if (!this.#opened) throw new Error("the engine has no open session: call open() first");
    return this.#opened;
  }

  /** A run for the next prompt, aborted already when an abort came between prompts. */
  #startRun(
    prompt: number,
    deadline?: number,
    exitCodes?: ExitCodes,
    limits?: SpendLimits,
  ): PromptRun {
    const run = new PromptRun(prompt, deadline, exitCodes, limits);
    if (this.#abortNext) run.abort();
    this.#abortNext = false;
    this.#current = run;
    return run;
  }

  /** The number the next user prompt of this session gets (1 for a new session). */
  #nextPrompt(session: Session): number {
    const stored = this.store.loadHistory(session.id) as StoredMessage[];
    return stored.filter((message) => message.role === "user").length + 1;
  }

  /**
   * Open (or create) the session and build its tools. `sandboxes`: the
   * sandbox probe already started for it (`startSandboxProbe`). `promptNext`:
   * a prompt follows at once (SessionSelector), so its git summary starts now.
   */
  async open(
    sessionId?: string,
    sandboxes?: Promise<AvailableSandboxes>,
    promptNext = false,
  ): Promise<EngineSession> {
    const spec = this.spec;
    const session = sessionId ? this.store.getSession(sessionId)! : this.store.createSession({
      workspace: spec.workspace,
      model: spec.model,
      agent: spec.agent,
      parentId: spec.parentId,
      title: spec.title,
      holder: spec.run,
    });
    if (spec.depth === 0) {
      // Spilled output of old sessions; this one's is kept whatever its age.
      pruneToolOutput(spec.dataDir, {
        ...spec.settings.toolOutput,
        keep: [session.id],
        everyMs: PRUNE_EVERY_MS,
      });
      // Temp files of writes a killed run left; only stale ones, as another run may be writing.
      sweepTempFiles(this.store.undoJournal.foldersWritten(spec.workspace), { onlyStale: true });
    }
    const emit: Emit = (type, body) => {
      const event = makeEvent(type, session.id, body) as SkiffEvent;
      if (isStoredEvent(event)) this.store.appendEvent(event);
      this.io.event(event);
    };
    const undoInto = this.undoInto;
    const ledger = undoLedger(this.store, session.id, undoInto);
    // Undo works per prompt: snapshots are filed under the prompt's number
    // (each run begins its own; `skiff tool` calls use this one).
    ledger.beginPrompt(this.#nextPrompt(session));
    const parts = await buildSessionParts({
      spec,
      store: this.store,
      session,
      ledger,
      io: this.io,
      emit,
      subagents: { run: (request) => this.#runSubagent(request) },
      sharedTools: this.sharedTools,
      sandboxes,
      promptNext,
      recordCommandChanges: (changes) => {
        ledger.noteChanged(changes.map((change) => change.path));
        this.#editorWrites.forget(changes.map((change) => change.path));
        // Filed like the ledger's snapshots: a subagent's under its parent's prompt.
        const target = undoInto ?? { sessionId: session.id, prompt: ledger.prompt };
        for (const change of changes) {
          // A session that owns some paths can write only those (its commands run
          // only under bubblewrap): any other change was made meanwhile by another
          // task or subagent, and is not this session's to put back.
          if (spec.owns.length && !spec.owns.some((owned) => isWithin(owned, change.path))) {
            continue;
          }
          this.store.snapshots.save(
            target.sessionId,
            target.prompt,
            change.path,
            change.before,
            change.mode,
          );
          // The state the command left: skiff's own until the prompt records its end.
          const after = undoStateOf(change.path);
          this.store.undoJournal.expect(target.sessionId, target.prompt, change.path, after);
        }
      },
      journalCommand: (tree) => {
        const target = undoInto ?? { sessionId: session.id, prompt: ledger.prompt };
        const { workspace, dataDir, owns } = spec;
        const id = this.store.undoJournal.beginCommand(target.sessionId, target.prompt, {
          workspace,
          dataDir,
          tree,
          owns,
        });
        return () => this.store.undoJournal.complete(id);
      },
    });
    this.#warnings = [...(spec.depth === 0 ? spec.warnings : []), ...parts.warnings];
    this.#openingGitSummary = parts.openingGitSummary;
    this.#opened = new EngineSession(session, ledger, parts, emit);
    return this.#opened;
  }

  get tools(): Tool[] {
    return this.#opened?.parts.tools ?? [];
  }

  /** One prompt, run to the end. */
  async run(request: RunRequest): Promise<RunResult> {
    const opened = this.#requireOpen();
    const { session, parts, ledger, emit } = opened;
    let stored = this.store.loadHistory(session.id) as StoredMessage[];
    const run = this.#startRun(
      stored.filter((message) => message.role === "user").length + 1,
      request.deadline,
      request.exitCodes,
      { maxCostUsd: request.maxCostUsd, maxTokens: request.maxTokens },
    );
    ledger.beginPrompt(run.prompt);
    // The stored message each history entry came from: a compaction names what it kept by id.
    const sources = new WeakMap<ChatMessage, string>();
    let history = toChatHistory(stored, sources);
    try {
      if (!session.title) {
        const title = (request.title ?? request.prompt).trim().split("\n")[0].slice(0, 80);
        this.store.updateSession(session.id, { title });
        session.title = title;
      }
      emit("session.started", {
        workspace: this.spec.workspace,
        model: this.spec.model,
        agent: this.spec.agent,
        resumed: stored.length > 0,
        ...(this.spec.parentId ? { parent_id: this.spec.parentId } : {}),
      });
      this.#flushWarnings(emit);
      const hooked = await this.#promptHooks(parts, request.prompt, stored.length > 0);
      // In an untrusted project, `.skiff/done.json`'s commands need a rule before anything runs.
      const unallowed = "block" in hooked
        ? `A UserPromptSubmit hook refused this prompt: ${hooked.block}`
        : this.spec.projectTrusted === true
        ? undefined
        : await projectCheckRefusal(
          request.until,
          (command) =>
            parts.gate.unattended(
              { tool: bashTool, input: { command } },
              parts.context("done_check", run.signal),
              { byRule: true },
            ),
        );
      if (unallowed) {
        const spent = run.spent;
        const outcome: LoopOutcome = {
          kind: "failed",
          message: unallowed,
          text: "",
          turns: 0,
          usage: spent.usage,
        };
        return this.#finish(opened, outcome, request.exitCodes);
      }
      // Each cycle of a checked run is its own prompt (src/engine/verify/cycles.ts).
      let number = run.prompt;
      let cycled: Awaited<ReturnType<typeof runCycles>>;
      try {
        cycled = await runCycles(
          {
            until: untilChecks(request.until, request.maxCycles),
            firstPrompt: run.prompt,
            prompt: "prompt" in hooked ? hooked.prompt : request.prompt,
            signal: run.signal,
            deadline: request.deadline,
          },
          {
            markCycle: (prompt, cycle) => this.store.snapshots.markCycle(session.id, prompt, cycle),
            checked: (summary) => {
              emit("verification.completed", summary);
              this.#rememberCheck(session.id, summary);
            },
            runCommand: (command, callId, signal) =>
              runCheckCommand(command, parts.context(callId, signal)),
            beforeChecks: async () => {
              const stopped = await stopBackground(parts.context("verify", run.signal).background);
              if (stopped) emit("warning", { message: stopped });
            },
            ...(this.spec.depth === 0 && parts.hooks.has("Stop")
              ? {
                stopHooks: (active: boolean, signal: AbortSignal) =>
                  stopHooks(parts.hooks, active, signal),
                stopNote: (message: string) => emit("warning", { message }),
              }
              : {}),
            runLoop: async (prompt, promptNumber, turnsBefore, turnsCounted) => {
              number = promptNumber;
              ledger.beginPrompt(promptNumber);
              if (promptNumber > run.prompt) {
                // A later cycle: the history now holds the attempts before it.
                stored = this.store.loadHistory(session.id) as StoredMessage[];
                history = toChatHistory(stored, sources);
              }
              const outcome = await runLoop(
                {
                  provider: this.provider!,
                  tools: parts.tools,
                  schemas: parts.schemas,
                  gate: parts.gate,
                  hooks: parts.toolHooks,
                  recorder: run.recorder(this.store, session.id, ledger),
                  emit,
                  context: (callId, signal) => parts.context(callId, signal),
                  parseInput: parts.parseInput,
                  truncate: parts.truncate,
                  turnsSoFar: session.turns + turnsBefore,
                },
                {
                  model: this.spec.model,
                  systemPrompt: await this.#systemPrompt(parts),
                  history,
                  sources,
                  userWords: userWords(
                    toChatHistory(stored.filter((message) => message.role !== "compaction")),
                  ),
                  compaction: compactionSettings(this.spec.settings),
                  modelLimits: resolveModelLimits(this.spec.model, this.spec.settings.models),
                  prompt,
                  maxTurns: request.maxTurns,
                  turnsCounted,
                  overBudget: () => run.overBudget(),
                  maxOutputTokens: parts.maxOutputTokens,
                  temperature: parts.temperature,
                  deadline: request.deadline,
                  signal: run.signal,
                },
              );
              this.#recordUndoAfterState(opened, promptNumber);
              return outcome;
            },
          },
        );
      } catch (error) {
        // A bug, not an outcome of the run; still end the stream the way
        // docs/events.md promises: error, then session.completed last.
        const message = error instanceof Error ? error.message : String(error);
        const exitCode = request.exitCodes.failed;
        emit("error", { code: "internal", message, exit_code: exitCode });
        this.store.updateSession(session.id, { status: "failed" });
        this.#recordUndoAfterState(opened, number);
        emit("session.completed", {
          text: "",
          usage: run.spent.usage,
          turns: run.spent.turns,
          exit_code: exitCode,
          denials: parts.gate.denials(),
          attribution: attributeFailure({ code: "internal", message, denials: [] }),
        });
        return { outcome: "failed", exitCode, sessionId: session.id, text: "" };
      }
      const { outcome, verification } = cycled;
      const done = outcome.kind === "completed" && parts.doneProposals?.length
        ? await measureProposals(parts.doneProposals, session.id, async (command, index) => {
          // The model chose it: it runs only where the agent's bash rules would run it unasked.
          const context = parts.context(`done_${run.prompt}_${index}`, run.signal);
          const verdict = await parts.gate.unattended(
            { tool: bashTool, input: { command } },
            context,
          );
          return verdict.allowed
            ? await runCheckCommand(command, context)
            : { notRun: verdict.reason, allowWith: verdict.allowWith };
        })
        : undefined;
      return { ...this.#finish(opened, outcome, request.exitCodes, verification), done };
    } finally {
      if (this.#current === run) this.#current = undefined;
    }
  }

  /** A child session for the task tool: its own history, never more rights than this one. */
  async #runSubagent(request: SubagentRunRequest): Promise<SubagentRunResult> {
    const { session, parts, ledger } = this.#requireOpen();
    const run = this.#current;
    if (!run?.exitCodes) {
      throw new ToolError("failed", "a subagent runs only within a prompt (skiff run).");
    }
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
      parentId: session.id,
      title: request.description,
      inheritedPermission: [
        ...this.spec.inheritedPermission,
        parts.agent.permission as Record<string, unknown>,
      ],
      inheritedTools: [...this.spec.inheritedTools ?? [], parts.agent.tools],
      owns,
      mcp: { enabled: false, env: {}, blocked: [] },
    };
    // Child events go to the store under the child's id, not to the terminal.
    const child = new Engine(
      childSpec,
      { event: () => {}, ask: (question) => this.io.ask(question), editor: this.io.editor },
      this.store,
      this.provider,
      parts.mcpTools,
      this.undoInto ?? { sessionId: session.id, prompt: ledger.prompt },
    );
    const stop = () => child.abort();
    // The parent may already be stopping: an event that fired before we
    // listened would never reach the child.
    if (request.signal.aborted) stop();
    request.signal.addEventListener("abort", stop, { once: true });
    try {
      const opened = await child.open();
      const result = await child.run({
        prompt: request.prompt,
        maxTurns: request.agent.maxTurns,
        deadline: run.deadline,
        exitCodes: run.exitCodes,
      });
      if (result.outcome !== "completed" && !result.text) {
        throw new ToolError(
          "failed",
          `the ${request.agent.name} subagent stopped without an answer (exit ${result.exitCode}); its session is ${opened.id}.`,
        );
      }
      // A child stopped by a limit or Ctrl-C may have said something on the
      // way; the parent must not take it for a finished answer.
      const text = result.outcome === "completed" || result.outcome === "denied"
        ? result.text
        : `${result.text}\n\n(The ${request.agent.name} subagent stopped before finishing (exit ${result.exitCode}); this answer may be incomplete. Its session is ${opened.id}.)`;
      return {
        sessionId: opened.id,
        text,
        filesRead: opened.ledger.entries().map(([path]) => path),
        filesWritten: opened.ledger.writtenPaths(),
      };
    } finally {
      request.signal.removeEventListener("abort", stop);
      await child.close();
    }
  }

  /**
   * A `--until` check goes into the workspace's harness memory as a
   * verification, as harness_verify's do, so the next session's status and
   * handoff see it (unless memory is off).
   */
  #rememberCheck(sessionId: string, summary: VerificationSummary): void {
    if (this.spec.settings.memory === false) return;
    recordVerification(harnessDeps(this.store.memory, this.spec.workspace, sessionId), {
      command: summary.command,
      exitCode: summary.exit_code,
      outputSummary: summary.summary,
      verdict: summary.passed ? "passed" : "failed",
      evidence: summary.output_path ? [summary.output_path] : [],
    });
  }

  async #systemPrompt(parts: SessionParts): Promise<string> {
    const opening = this.#openingGitSummary;
    this.#openingGitSummary = undefined;
    return renderSystemPrompt({
      workspace: this.spec.workspace,
      date: new Date(),
      platform: `${Deno.build.os} ${Deno.build.arch}`,
      gitSummary: await (opening ?? gitSummary(this.spec.workspace, parts.helperCommands)),
      instructions: collectInstructions(
        this.spec.workspace,
        this.spec.configDir,
        (message) => {
          if (this.#instructionWarnings.has(message)) return;
          this.#instructionWarnings.add(message);
          this.#opened?.emit("warning", { message });
        },
      ),
      agentPrompt: parts.agentPrompt,
      model: this.spec.model,
      modelSettings: this.spec.provider.modelDialects,
      memory: this.spec.settings.memory === false
        ? null
        : memoryPromptSection(this.store.memory, this.spec.workspace),
    });
  }

  /**
   * What this prompt left each changed file as, so `skiff undo` can tell
   * skiff's own state from later changes (a subagent's files are in its
   * parent's prompt, which records them when it ends).
   */
  #recordUndoAfterState(opened: EngineSession, prompt: number, paths?: readonly string[]): void {
    if (this.undoInto) return;
    recordUndoAfterState(
      this.store,
      opened.id,
      prompt,
      paths,
      (path) => this.#editorWrites.stateOf(path),
    );
  }

  #finish(
    opened: EngineSession,
    outcome: LoopOutcome,
    exitCodes: ExitCodes,
    verification?: VerificationSummary,
  ): RunResult {
    return reportOutcome(
      {
        store: this.store,
        session: opened.session,
        emit: opened.emit,
        exitCodes,
        // A subagent's session is continued through its parent, not by hand.
        resumable: this.spec.depth === 0,
      },
      outcome,
      opened.parts.gate.denials(),
      verification,
    );
  }

  /** SessionStart (before a session's first prompt here) and UserPromptSubmit; a subagent runs neither. */
  #promptHooks(parts: EngineSession["parts"], prompt: string, resumed: boolean) {
    if (this.spec.depth > 0) return Promise.resolve({ prompt });
    const start = this.#hooksStarted ? undefined : resumed ? "resume" : "startup";
    this.#hooksStarted = true;
    return promptHooks(parts.hooks, prompt, start);
  }

  #flushWarnings(emit: Emit): void {
    for (const message of this.#warnings) emit("warning", { message });
    this.#warnings = [];
  }

  /**
   * One tool call without a model (`skiff tool`), through the loop's own
   * path: the same rules, and the same events in the session's log (turn 0:
   * no model turn asked for it).
   */
  runTool(name: string, input: unknown, options?: ToolCallOptions): Promise<ToolCallResult> {
    if (!options?.inOrder) return this.#runTool(name, input, options);
    const result = this.#ordered.then(() => this.#runTool(name, input, options));
    this.#ordered = result.catch(() => {});
    return result;
  }

  /** Stops the call running under `cancelId` (its signal reaches its processes). */
  cancelTool(cancelId: string): void {
    this.#cancellable.get(cancelId)?.abort();
  }

  async #runTool(
    name: string,
    input: unknown,
    { cancelId, typedByPerson }: ToolCallOptions = {},
  ): Promise<ToolCallResult> {
    const opened = this.#requireOpen();
    const { session, parts, ledger, emit } = opened;
    this.#openingGitSummary = undefined; // a call may change what git would see
    this.#flushWarnings(emit);
    // Its own signal, like a prompt's; its changes go under the session's next prompt.
    const run = this.#startRun(ledger.prompt);
    if (cancelId !== undefined) this.#cancellable.set(cancelId, run);
    const tools = new Map(parts.tools.map((tool) => [tool.name, tool]));
    // The chat's `!command` and `@file` come here too; their session keeps its title.
    if (tools.has(name) && this.spec.agent === "tool") this.#titleToolSession(session, name);
    const call = {
      id: `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
      name,
      arguments: JSON.stringify(input ?? {}),
    };
    const part = await runToolCall(
      {
        tools,
        gate: parts.gate,
        hooks: parts.toolHooks,
        emit,
        context: (callId, signal) => parts.context(callId, signal),
        parseInput: parts.parseInput,
        truncate: parts.truncate,
        // No model reads a history here: only what the ledger learnt is kept.
        record: () => {
          if (ledger.takeSeenChanged()) this.store.saveFileReads(session.id, ledger.entries());
        },
      },
      call,
      0,
      run.signal,
      { typedByPerson },
    ).finally(() => {
      if (this.#current === run) this.#current = undefined;
      if (cancelId !== undefined && this.#cancellable.get(cancelId) === run) {
        this.#cancellable.delete(cancelId);
      }
    });
    // Only the files this call changed: the whole prompt's after each call made a
    // batch of edits read every file it had changed so far (600 writes: 12.0 s → 2.3 s).
    // A subagent (which files its changes under this prompt) runs only within a run.
    const changed = ledger.takeChanged();
    if (changed.length) this.#recordUndoAfterState(opened, ledger.prompt, changed);
    return part.ok
      ? { tool: name, ok: true, output: part.output, metadata: part.metadata ?? {} }
      : { tool: name, ok: false, output: "", error: part.error, metadata: {} };
  }

  /** A `skiff tool` session is titled by the tools it ran: "skiff tool: read, edit". */
  #titleToolSession(session: Session, name: string): void {
    const prefix = "skiff tool: ";
    const names = session.title.startsWith(prefix)
      ? session.title.slice(prefix.length).split(", ")
      : [];
    if (names.includes(name) || session.title.length > 80) return;
    const title = `${prefix}${[...names, name].join(", ")}`;
    this.store.updateSession(session.id, { title });
    session.title = title;
  }

  /**
   * The chat's `/compact`: compacts this session now, with the code `skiff
   * compact` runs; the compaction is drawn and stored as an event.
   */
  async compact(focus?: string): Promise<{ changed: boolean; text: string }> {
    const { session, emit } = this.#requireOpen();
    if (!this.provider) throw new Error("this engine has no model to write the summary");
    const outcome = await compactSession({
      store: this.store,
      session,
      provider: this.provider,
      model: this.spec.model,
      config: this.spec.settings,
      focus,
      warn: (message) => emit("warning", { message }),
    });
    if (!outcome.changed) {
      return {
        changed: false,
        text: outcome.failed
          ? `Could not compact: ${outcome.reason.replace(/\.$/, "")}. Nothing was changed.`
          : `Nothing to compact: ${outcome.reason}.`,
      };
    }
    emit("context.compacted", outcome.event);
    return { changed: true, text: `Compacted: ${describeCompaction(outcome.event)}.` };
  }

  /** The chat's `/mcp`: this session's MCP servers and their state. */
  mcpStatus(): McpServerStatus[] {
    return this.#requireOpen().parts.mcpStatus?.() ?? [];
  }

  /**
   * The chat's input has waited for the person (config
   * `idleNotificationSeconds`): the Notification hooks hear `idle_prompt`.
   * Nothing while a prompt runs, or before the session is open.
   */
  async notifyIdle(): Promise<void> {
    const parts = this.#opened?.parts;
    if (!parts || this.#current) return;
    await notificationHooks(parts.hooks, "skiff is waiting for your input", "idle_prompt");
  }

  async close(): Promise<void> {
    // A `skiff tool` batch has no outcome of its own: it ends when its calls are done.
    if (this.#opened && this.spec.agent === "tool") {
      // What commands its calls left in the background changed after the last call.
      const changed = this.#opened.ledger.takeChanged();
      if (changed.length) {
        this.#recordUndoAfterState(this.#opened, this.#opened.ledger.prompt, changed);
      }
      this.store.updateSession(this.#opened.id, { status: "completed" });
    }
    if (this.#opened && this.#hooksStarted) {
      await sessionEndHooks(this.#opened.parts.hooks, "other");
    }
    await this.#opened?.parts.close();
  }
}
