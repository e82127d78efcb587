/**
 * `skiff` / `skiff chat`: a conversation at a terminal. Each message is one
 * prompt of the same session `skiff run` writes (sessions show, export and
 * --continue work across both). Keys come from the raw terminal (src/ui/chat/
 * input/); the screen is drawn through a ChatRenderer. Esc or Ctrl-C stops
 * the running turn and keeps the input; Ctrl-D, or Ctrl-C twice on an empty
 * input, exits with a hint to continue.
 */
import { collectGarbage } from "../../lib/collect.ts";
import type { CommonOptions } from "../../host/setup.ts";
import { MissingPrerequisites, prepare } from "../../host/setup.ts";
import type { ApprovalRequest, EngineIO, EngineSpec } from "../../engine/types.ts";
import type { EngineHandle, SessionSelector } from "../../engine/handle.ts";
import { startEngine } from "../../host/start.ts";
import { ExitCode, OUTCOME_EXIT_CODES, UsageError } from "../exit_codes.ts";
import { approvalPrompter } from "../approvals.ts";
import { reportFatal } from "../report_fatal.ts";
import { mark } from "../../boot/timings.ts";
import { type ChatRenderer, createChatRenderer } from "../../ui/chat/mod.ts";
import { resolveModelLimits } from "../../provider/model_limits.ts";
import type { SkiffEvent } from "../../contracts/events.ts";
import { LineEditor } from "../../ui/chat/input/editor.ts";
import type { Key } from "../../ui/chat/input/keys.ts";
import { KeySource } from "../../ui/chat/input/key_source.ts";
import { appendHistory, historyFile, readHistory } from "../../ui/chat/input/history.ts";
import {
  bestMatches,
  expandMentions,
  mentionAt,
  workspaceFiles,
} from "../../ui/chat/input/mentions.ts";
import {
  type ChatControls,
  type ChatMessage,
  CommandRegistry,
} from "../../ui/chat/input/commands.ts";
import type { SessionControls } from "./commands/mod.ts";
import { InlineBroker } from "../../ui/interactive_broker.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { fencedBlock } from "../../lib/markdown_fence.ts";
import { replayItems, withNotes } from "./replay.ts";
import { loadMarkdown } from "../../ui/chat/markdown.ts";
import { lastStoredReasoning, pickSession, resumedStatus, resumeHint } from "./sessions.ts";
import { watchTerminalSize } from "../../ui/chat/input/terminal_size.ts";
import { AppendEcho } from "../../ui/chat/input/append_echo.ts";
import { canRedraw } from "../../ui/chat/style.ts";
import { textWidth } from "../../ui/chat/width.ts";

export interface ChatOptions extends CommonOptions {
  continue?: boolean;
  /** `--resume` alone is `true`: pick from a list. */
  resume?: string | boolean;
}

export const HEADLESS_HINT = `skiff: the interactive session needs a terminal.
Run headless instead:  skiff run "what to do"
or pipe the prompt:    echo "what to do" | skiff run`;

export async function chatCommand(promptArgs: string[], options: ChatOptions): Promise<number> {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
    console.error(HEADLESS_HINT);
    return ExitCode.usage;
  }
  try {
    return await chat(promptArgs, options);
  } catch (error) {
    return reportFatal(error);
  }
}

async function chat(promptArgs: string[], options: ChatOptions): Promise<number> {
  if (options.continue && options.resume) {
    throw new UsageError("use either --continue or --resume, not both.");
  }
  const askAtStart = async (request: ApprovalRequest) => {
    const answer = await approvalPrompter(true)(request);
    return answer === "interrupt" ? "deny" : answer;
  };
  let prepared;
  try {
    prepared = await prepare(options, true, askAtStart);
  } catch (error) {
    // No model or key yet, at a terminal: set them up instead of stopping.
    if (!(error instanceof MissingPrerequisites)) throw error;
    const { firstRunSetup, terminalQuestions } = await import("./first_run.ts");
    if (!(await firstRunSetup(error.missing, terminalQuestions()))) {
      console.error("Setup cancelled: nothing was written.");
      throw error;
    }
    prepared = await prepare(options, true, askAtStart);
  }
  const { spec } = prepared;
  let selector: SessionSelector = {};
  if (options.continue) selector = { continueLatest: true };
  else if (typeof options.resume === "string") selector = { sessionId: options.resume };
  else if (options.resume) {
    const picked = pickSession(spec);
    if (!picked) return ExitCode.ok;
    selector = picked;
  }
  return await new ChatSession(spec, selector).run(promptArgs.join(" ").trim());
}

/** Seconds the input waits untouched before `idle_prompt`, as in Claude Code. */
const DEFAULT_IDLE_SECONDS = 60;

class ChatSession {
  readonly renderer: ChatRenderer;
  readonly keys = new KeySource();
  readonly editor = new LineEditor();
  /** Loaded once the input is drawn: the MCP and policy modules behind them would delay the prompt. */
  #commands?: Promise<CommandRegistry<SessionControls>>;
  #engine?: EngineHandle;
  #sessionId?: string;
  #busy = false;
  /** Ctrl-C or Esc came during this turn, perhaps before its engine was up to hear it. */
  #stopRequested = false;
  #queued: string[] = [];
  /** Output of `!command`s, handed to the model with the next message. */
  #shellNotes: string[] = [];
  #files?: string[];
  #exit!: () => void;
  #history = "";
  /** Runs the Notification hooks' `idle_prompt` once the input has waited long enough. */
  #idleTimer?: ReturnType<typeof setTimeout>;

  constructor(private spec: EngineSpec, private selector: SessionSelector) {
    const size = terminalSize();
    this.renderer = createChatRenderer({
      ...size,
      status: {
        model: spec.model,
        agent: spec.agent,
        sandbox: spec.sandbox.mode,
        ...contextWindow(spec),
      },
    });
  }

  async run(firstPrompt: string): Promise<number> {
    // Raw at once: what is typed while skiff starts waits, unechoed and
    // unchanged, for the editor (cooked mode would echo it and turn Enter
    // into a newline).
    try {
      Deno.stdin.setRaw(true);
    } catch { /* not a terminal after all: KeySource says so */ }
    this.#history = await historyFile(this.spec.dataDir, this.spec.workspace);
    for (const line of readHistory(this.#history)) this.editor.remember(line);
    if (this.selector.sessionId || this.selector.continueLatest) {
      await this.#ensureEngine();
      await this.#showEarlier(this.#sessionId!);
    }
    this.renderer.print(
      neutraliseControls(
        `skiff · ${this.spec.model} · ${this.spec.workspace}\n/help for commands · Ctrl-D to exit` +
          windowNote(this.spec),
      ),
    );
    const done = new Promise<void>((resolve) => (this.#exit = resolve));
    const reading = this.keys.run((key) => void this.#onKey(key));
    const unwatch = watchTerminalSize(
      terminalSize,
      ({ columns, rows }) => this.renderer.resize(columns, rows),
    );
    this.#redraw();
    mark("prompt");
    this.#registry().catch(() => {}); // a failure shows when a command is used
    if (firstPrompt) void this.#submit(firstPrompt);
    await Promise.race([done, reading]);
    this.#stopIdleWait();
    unwatch();
    this.keys.stop();
    this.renderer.dispose();
    await this.#engine?.close();
    if (this.#sessionId) {
      // Too wide for one row: the command on a row of its own, never cut between two.
      const command = resumeHint(this.#sessionId);
      const hint = `Continue this conversation with: ${command}`;
      console.log(
        textWidth(hint) < terminalSize().columns
          ? hint
          : `Continue this conversation with:\n  ${command}`,
      );
    }
    return ExitCode.ok;
  }

  /**
   * A resumed session's earlier prompts, drawn as they were live (replay.ts);
   * then its status line as the last run left it. False when it has none.
   */
  async #showEarlier(sessionId: string): Promise<boolean> {
    const items = replayItems(this.spec, sessionId);
    if (items.length) {
      // Answers are markdown: drawn as they were live once the lexer is in.
      await loadMarkdown().catch(() => {});
      this.renderer.print(neutraliseControls(`── earlier in ${sessionId} ──`));
      for (const item of items) {
        if (item.kind === "prompt") this.renderer.print(neutraliseControls(`› ${item.text}`));
        else this.renderer.event(this.#chatHints(item.event));
      }
      this.renderer.print("── now ──");
    }
    this.renderer.setStatus(resumedStatus(this.spec, sessionId));
    return items.length > 0;
  }

  /** TERM=dumb: the renderer draws no input, so it is echoed by appending. */
  readonly #echo = canRedraw()
    ? undefined
    : new AppendEcho((text) => Deno.stdout.writeSync(new TextEncoder().encode(text)));

  #redraw(hint?: string): void {
    const search = this.editor.view().searching;
    if (search) return this.#drawSearch(search.query, search.match);
    this.#echo?.show(this.editor.text);
    this.renderer.setInput(
      this.editor.text,
      this.editor.cursor,
      hint ??
        (this.#busy
          ? "working… Esc to stop · Enter queues a message"
          : this.editor.hasCollapsedPaste
          ? "Ctrl-O shows the pasted text · Enter sends it whole"
          : undefined),
    );
  }

  /**
   * Ctrl-R: the match found so far stands in the input, the cursor on the
   * query inside it, and the line below says what is being searched for.
   */
  #drawSearch(query: string, match: string | undefined): void {
    const found = match ?? "";
    const at = query && match !== undefined ? found.indexOf(query) : -1;
    const hint = `search history: ${query}${
      query && match === undefined ? " (no match)" : ""
    } · Ctrl-R older · Enter sends · Esc cancels`;
    this.#echo?.show(`(search) ${query}: ${found}`);
    this.renderer.setInput(found, at < 0 ? found.length : at, hint);
  }

  /** Ctrl-T: the reasoning shown from now on (and the last one written out), or collapsed again. */
  #toggleReasoning(): void {
    const on = !this.renderer.reasoningShown;
    this.renderer.showReasoning(on);
    const note = on
      ? "Reasoning shown from now on (Ctrl-T collapses it)."
      : "Reasoning collapsed from now on (Ctrl-T shows it).";
    // While a turn runs the note is the input's hint: a line printed now would cut the answer's markdown.
    if (this.#busy) return this.#redraw(note);
    this.renderer.print(note);
    if (on) this.renderer.expandReasoning(() => this.#storedReasoning());
  }

  /** A resumed session's last reasoning, for when this chat has seen none yet. */
  #storedReasoning(): string {
    return this.#sessionId ? lastStoredReasoning(this.spec, this.#sessionId) : "";
  }

  /** Stops the running turn: the stream, or the running command and every process it started. */
  #stopTurn(): void {
    this.#stopRequested = true;
    this.#engine?.abort();
  }

  async #onKey(key: Key): Promise<void> {
    this.#stopIdleWait(); // the person is here
    // While a turn runs, Ctrl-C stops it whatever the input holds.
    if (this.#busy && (key.kind === "escape" || key.kind === "ctrl-c")) return this.#stopTurn();
    // Ctrl-O shows what is collapsed: a long paste in the input first, else the last call.
    if (key.kind === "ctrl-o") {
      return this.editor.expandPastes() ? this.#redraw() : this.renderer.expandTool();
    }
    if (key.kind === "ctrl-t") return this.#toggleReasoning();
    const action = this.editor.handle(key);
    switch (action.kind) {
      case "submit":
        appendHistory(this.#history, action.text);
        if (this.#busy) {
          this.#queued.push(action.text);
          this.renderer.print(neutraliseControls(`(queued) ${action.text}`));
          break;
        }
        this.#redraw();
        await this.#submit(action.text);
        return;
      case "exit":
        this.#exit();
        return;
      case "exit-hint":
        this.#redraw(
          `Press Ctrl-C again (or Ctrl-D) to exit${
            this.#sessionId ? ` · come back with: ${resumeHint(this.#sessionId)}` : ""
          }`,
        );
        return;
      case "interrupt":
        if (key.kind === "ctrl-c") this.editor.clear();
        break;
      case "complete":
        await this.#complete();
        return;
    }
    this.#redraw();
  }

  async #complete(): Promise<void> {
    const { text, cursor } = this.editor;
    const slash = /^\/(\S*)$/.exec(text.slice(0, cursor));
    if (slash) {
      const names = (await this.#registry()).complete(slash[1]);
      if (names.length === 1) this.editor.set(`/${names[0]} `);
      this.#redraw(names.map((name) => `/${name}`).join("  "));
      return;
    }
    const mention = mentionAt(text, cursor);
    if (!mention) return this.#redraw();
    this.#files ??= await workspaceFiles(this.spec.workspace);
    const matches = bestMatches(mention.query, this.#files);
    if (matches.length) {
      this.editor.text = `${text.slice(0, mention.start)}@${matches[0]} ${text.slice(cursor)}`;
      this.editor.cursor = mention.start + matches[0].length + 2;
    }
    this.#redraw(matches.length > 1 ? matches.slice(1).join("  ") : undefined);
  }

  async #ensureEngine(): Promise<EngineHandle> {
    if (this.#engine) return this.#engine;
    const broker = new InlineBroker({
      borrow: (consumer) => this.keys.borrow(consumer),
      print: (text) => this.renderer.print(text),
      editLine: (text, hint) => {
        if (text === undefined) return this.#redraw();
        this.#echo?.show(text);
        this.renderer.setInput(text, text.length, hint);
      },
    });
    const io: EngineIO = {
      event: (event) => this.renderer.event(this.#chatHints(event)),
      ask: async (request) => {
        const answer = await broker.ask(request);
        // Esc or Ctrl-C at the question: the call does not run, and the turn stops there, as
        // at Esc while the agent works (the model is not asked again).
        if (answer === "interrupt") this.#stopTurn();
        return answer;
      },
    };
    const engine = await startEngine({ ...this.spec, interactive: true }, io);
    try {
      this.#sessionId = await engine.open(this.selector);
    } catch (error) {
      await engine.close();
      throw error;
    }
    this.#engine = engine;
    return engine;
  }

  /** The engine's "continue with: skiff run --session …" becomes the chat's own way back. */
  #chatHints(event: SkiffEvent): SkiffEvent {
    if (event.type !== "error" || !this.#sessionId) return event;
    const message = event.message.replace(/\. Continue with: skiff run --session \S+ "…"$/, "");
    if (message === event.message) return event;
    return {
      ...event,
      message: `${message}. Continue here, or after exiting with: ${resumeHint(this.#sessionId)}`,
    };
  }

  async #submit(text: string): Promise<void> {
    const command = CommandRegistry.parse(text);
    this.#busy = true;
    this.#stopRequested = false;
    this.#redraw();
    try {
      const slash = command && (await this.#registry()).get(command.name);
      if (command && slash) {
        await slash.run(command.args, this.#controls());
      } else if (text.startsWith("!")) {
        await this.#shell(text.slice(1).trim());
      } else {
        await this.#prompt(text);
      }
    } catch (error) {
      this.renderer.print(neutraliseControls(`skiff: ${(error as Error).message}`));
    } finally {
      this.#busy = false;
      this.#redraw();
    }
    const next = this.#queued.shift();
    if (next !== undefined) await this.#submit(next);
    else this.#startIdleWait();
  }

  /**
   * The answer is there and the input waits: after the configured seconds
   * untouched (default 60), the engine runs the Notification hooks with
   * `idle_prompt`, once per wait. Only once a session is open: its hooks
   * are the engine's.
   */
  #startIdleWait(): void {
    this.#stopIdleWait();
    const engine = this.#engine;
    if (!engine?.notifyIdle) return;
    const seconds = this.spec.settings.idleNotificationSeconds ?? DEFAULT_IDLE_SECONDS;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (!this.#busy) engine.notifyIdle?.();
    }, seconds * 1000);
  }

  #stopIdleWait(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  async #prompt(message: ChatMessage): Promise<void> {
    const text = typeof message === "string" ? message : message.shown;
    this.renderer.print(neutraliseControls(`› ${text}`));
    const engine = await this.#ensureEngine();
    const { prompt, unattached = [] } = typeof message !== "string"
      ? { prompt: await message.build(() => this.#stopRequested) }
      : await expandMentions(
        text,
        (file) => {
          try {
            return Deno.statSync(`${this.spec.workspace}/${file}`).isFile ? "file" : "folder";
          } catch {
            return "missing";
          }
        },
        async (file) => {
          const result = await engine.runTool("read", { file_path: file });
          return result.ok
            ? { ok: true, text: result.output }
            : { ok: false, why: result.error?.message ?? "refused" };
        },
      );
    for (const { path, why } of unattached) {
      this.renderer.print(neutraliseControls(`@${path} is not attached: ${why}; sent as typed.`));
    }
    if (this.#stopRequested) {
      // Stopped while the engine was still starting: the model is not asked.
      this.renderer.print(this.#stopped());
      if (!this.editor.text) this.editor.set(text);
      return;
    }
    const result = await engine.run({
      prompt: withNotes(this.#shellNotes.splice(0), prompt),
      title: text,
      exitCodes: OUTCOME_EXIT_CODES,
    });
    if (result.outcome === "interrupted" && !this.editor.text) this.editor.set(text);
    // The person reads the answer now: collect the turn's garbage on both
    // sides, so a long chat's memory stays flat (lib/collect.ts).
    engine.collect?.();
    collectGarbage();
  }

  /** What a turn stopped before the model was asked shows: what a stopped run's error says. */
  #stopped(): string {
    return "skiff: interrupted";
  }

  async #shell(command: string): Promise<void> {
    if (!command) return;
    const engine = await this.#ensureEngine();
    if (this.#stopRequested) return this.renderer.print(this.#stopped());
    // The person's own command: it runs without the approval question a rule would put.
    const result = await engine.runTool(
      "bash",
      { command, description: "typed by the user" },
      { typedByPerson: true },
    );
    // Its tool line already shows the output (folded; Ctrl-O writes it out whole).
    const note = result.ok
      ? `I ran \`${command}\` myself; its output:`
      : `I tried to run \`${command}\` myself; it did not run or failed:`;
    const output = result.ok ? result.output : result.error?.message ?? "failed";
    this.#shellNotes.push(`${note}\n${fencedBlock(output.trimEnd())}`);
  }

  #registry(): Promise<CommandRegistry<SessionControls>> {
    return this.#commands ??= import("./commands/mod.ts").then((module) =>
      module.chatCommands(this.#controls())
    );
  }

  #controls(): SessionControls {
    return {
      print: (text) => this.renderer.print(text),
      confirm: (question) =>
        new Promise((resolve) => {
          this.renderer.print(`${question} [y/N]`);
          const release = this.keys.borrow((key) => {
            release();
            resolve(key.kind === "text" && key.text?.toLowerCase() === "y");
          });
        }),
      newSession: async () => {
        await this.#engine?.close();
        this.#engine = undefined;
        this.#sessionId = undefined;
        this.selector = {};
        this.#shellNotes = [];
        // The status line counts this session's tokens: the new one has none yet.
        this.renderer.setStatus({ contextTokens: 0, totalTokens: 0, costUsd: undefined });
      },
      exit: () => this.#exit(),
      send: (message) => this.#prompt(message),
      sessionId: () => this.#sessionId,
      ...this.#sessionControls(),
    };
  }

  /** What the slash commands of src/cli/chat_commands/ add: the engine, switching model, agent or session. */
  #sessionControls(): Omit<SessionControls, keyof ChatControls> {
    return {
      spec: () => this.spec,
      engine: () => this.#ensureEngine(),
      tellModel: (note) => this.#shellNotes.push(note),
      showEarlier: (sessionId) => this.#showEarlier(sessionId),
      reasoning: this.renderer,
      reopen: async ({ model, agent, sessionId }) => {
        await this.#engine?.close();
        this.#engine = undefined;
        this.spec = {
          ...this.spec,
          model: model ?? this.spec.model,
          agent: agent ?? this.spec.agent,
        };
        this.renderer.setStatus({
          model: this.spec.model,
          agent: this.spec.agent,
          ...contextWindow(this.spec),
        });
        this.#sessionId = sessionId ?? this.#sessionId;
        this.selector = this.#sessionId ? { sessionId: this.#sessionId } : {};
        if (sessionId) this.#shellNotes = [];
      },
      pick: (question, count) =>
        new Promise((resolve) => {
          this.renderer.print(`${question} [1-${count}, any other key cancels]`);
          const release = this.keys.borrow((key) => {
            release();
            const chosen = key.kind === "text" ? Number(key.text) : NaN;
            resolve(
              Number.isInteger(chosen) && chosen >= 1 && chosen <= count ? chosen : undefined,
            );
          });
        }),
    };
  }
}

/** The terminal's size; 80×24 when it cannot be read or reads as zero (some ptys do). */
function terminalSize(): { columns: number; rows: number } {
  try {
    const { columns, rows } = Deno.consoleSize();
    if (columns > 0 && rows > 0) return { columns, rows };
  } catch { /* not a console */ }
  return { columns: 80, rows: 24 };
}

/** The status line's window: the model's, and whether skiff only assumed it. */
function contextWindow(spec: EngineSpec): { window: number; windowAssumed: boolean } {
  const limits = resolveModelLimits(spec.model, spec.settings.models);
  return { window: limits.context, windowAssumed: limits.source === "default" };
}

/** Under the greeting when the window is assumed: why the status says `ctx ?` and how to set it. */
function windowNote(spec: EngineSpec): string {
  const { window, windowAssumed } = contextWindow(spec);
  if (!windowAssumed) return "";
  return `\nctx ?: the context window of ${spec.model} is not known (assumed ${window} tokens); ` +
    `set it in the config as models."${spec.model}".context`;
}
