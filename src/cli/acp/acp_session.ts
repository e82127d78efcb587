/**
 * One ACP session: skiff's engine started as the chat starts it
 * (`startEngine`, the same stored session, the same permission gate), its
 * events sent to the editor as `session/update`s, and its approval
 * questions asked with `session/request_permission`: the engine's one
 * broker for an attended session is `EngineIO.ask`, and this is that
 * answer. A mode is an agent; switching closes the engine and opens the same
 * session with the new agent at the next prompt, as the chat's /agent does.
 * Where the editor offers its buffers (`fs/read_text_file`,
 * `fs/write_text_file`), the file tools read and write through them
 * (`EngineIO.editor`), each call bounded by `AcpOptions.editorWait`.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, ApprovalRequest, EngineIO, EngineSpec } from "../../engine/types.ts";
import type { EngineHandle, SessionSelector } from "../../engine/handle.ts";
import type { EditorFiles } from "../../contracts/editor_files.ts";
import * as path from "../../lib/path.ts";
import { backgroundDelay } from "../../lib/background_ticks.ts";
import { lexicallyWithin } from "../../sandbox/paths.ts";
import { startEngine } from "../../host/start.ts";
import { OUTCOME_EXIT_CODES } from "../exit_codes.ts";
import { printErrorLine } from "../../ui/safe_print.ts";
import { promptText } from "./acp_prompt.ts";
import { toolKind, UpdateTranslator } from "./acp_updates.ts";

/** The answers an editor is offered, by the id it sends back. */
const ALLOW_ONCE: acp.PermissionOption = {
  optionId: "allow-once",
  name: "Allow once",
  kind: "allow_once",
};
const ALLOW_ALWAYS: acp.PermissionOption = {
  optionId: "allow-always",
  name: "Allow always (this session)",
  kind: "allow_always",
};
const REJECT: acp.PermissionOption = { optionId: "reject", name: "Reject", kind: "reject_once" };

/**
 * The editor's answer as the broker's. Only an offered yes lets the call
 * run; "cancelled" (the prompt was cancelled) stops the turn; anything else
 * refuses.
 */
export function approvalAnswer(
  outcome: acp.RequestPermissionOutcome,
  offered: readonly acp.PermissionOption[],
): ApprovalAnswer {
  if (outcome.outcome === "cancelled") return "interrupt";
  const chosen = offered.find((option) => option.optionId === outcome.optionId);
  if (chosen?.kind === "allow_once") return "once";
  if (chosen?.kind === "allow_always") return "always";
  return "deny";
}

/** The question as an editor shows it: what the call would do, and why it asks. */
export function permissionQuestion(
  sessionId: string,
  request: ApprovalRequest,
): acp.RequestPermissionRequest {
  // No "always" for a call no rule could name safely (a destructive command).
  const options = request.always.length ? [ALLOW_ONCE, ALLOW_ALWAYS, REJECT] : [
    ALLOW_ONCE,
    REJECT,
  ];
  const subject = request.access.patterns.join(", ");
  return {
    sessionId,
    toolCall: {
      toolCallId: request.callId ?? `permission-${crypto.randomUUID()}`,
      title: `${request.tool}${subject ? ` ${subject}` : ""}: ${request.decision.reason}`,
      kind: toolKind(request.tool),
    },
    options,
  };
}

/** How the engine's run ended, as ACP's stop reason. */
function stopReason(outcome: string): acp.StopReason {
  if (outcome === "interrupted") return "cancelled";
  if (outcome === "limit") return "max_turn_requests";
  return "end_turn";
}

/** What the editor said of itself at `initialize`, and how long an editor call may take. */
export interface AcpOptions {
  /** The editor's file system offer (`clientCapabilities.fs`). */
  fs: acp.FileSystemCapabilities;
  /** Milliseconds an `fs/*` request may wait for the editor's answer. */
  editorWait: number;
  /**
   * The folder as the editor named it (`cwd`): the workspace is its real
   * path, and a file inside is named to the editor under the editor's own
   * spelling, so it finds its buffer.
   */
  editorRoot: string;
}

/** An editor's error as the model reads it: its message and data, bounded. */
function editorErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const data = (error as { data?: unknown }).data;
  const detail = data === undefined ? "" : `: ${JSON.stringify(data)}`;
  return `${message}${detail}`.slice(0, 500);
}

/**
 * An editor request that gives up after `wait` milliseconds: an editor that
 * never answers fails the one tool call, not the session.
 */
async function boundedEditorCall<T>(
  call: (options: acp.SendRequestOptions) => Promise<T>,
  method: string,
  wait: number,
): Promise<T> {
  const signal = AbortSignal.timeout(wait);
  try {
    return await call({ cancellationSignal: signal, stopWaitingOnCancel: true });
  } catch (error) {
    if (signal.aborted) {
      throw new Error(`it did not answer ${method} within ${wait / 1000} s`);
    }
    throw new Error(`it answered ${method} with an error (${editorErrorText(error)})`);
  }
}

/** How long `close` lets a cancelled turn end on its own before it ends the engine under it. */
const CLOSE_WAIT_MS = 5_000;

/** An open session of this connection. */
export class AcpSession {
  #engine?: EngineHandle;
  #selector: SessionSelector;
  #translator: UpdateTranslator;
  #sent: Promise<void> = Promise.resolve();
  #busy = false;
  /** Settles once the running prompt has ended (its answer sent): what `close` waits for. */
  #turnEnded: Promise<void> = Promise.resolve();
  #cancelled = false;
  id = "";

  private constructor(
    private spec: EngineSpec,
    private readonly client: acp.AgentContext,
    selector: SessionSelector,
    private readonly options: AcpOptions,
  ) {
    this.#selector = selector;
    this.#translator = new UpdateTranslator(spec.workspace);
  }

  /** Starts the engine and opens the session `selector` names (a new one when empty). */
  static async open(
    spec: EngineSpec,
    client: acp.AgentContext,
    selector: SessionSelector,
    options: AcpOptions,
  ): Promise<AcpSession> {
    const session = new AcpSession(spec, client, selector, options);
    await session.#ensureEngine();
    return session;
  }

  /** The agents a person may run, as modes, and the current one. */
  modes(): acp.SessionModeState {
    const agents = (this.spec.resolvedAgents?.agents ?? []).filter((agent) =>
      agent.mode !== "subagent" && agent.name !== "tool"
    );
    return {
      currentModeId: this.spec.agent,
      availableModes: agents.map((agent) => ({
        id: agent.name,
        name: agent.name,
        description: agent.description,
      })),
    };
  }

  /** Sends updates in order; `flush` waits for them all. */
  send(update: acp.SessionUpdate): void {
    const sessionId = this.id;
    this.#sent = this.#sent.then(() =>
      this.client.notify("session/update", { sessionId, update }).catch(() => {})
    );
  }

  flush(): Promise<void> {
    return this.#sent;
  }

  /** One prompt, to its end; the stop reason. */
  async prompt(blocks: readonly acp.ContentBlock[]): Promise<acp.StopReason> {
    if (this.#busy) {
      throw RequestError.invalidRequest(
        undefined,
        "a prompt is already running in this session; cancel it or wait for its answer",
      );
    }
    this.#busy = true;
    this.#cancelled = false;
    let ended!: () => void;
    this.#turnEnded = new Promise((resolve) => ended = resolve);
    try {
      const engine = await this.#ensureEngine();
      const { prompt, title } = await promptText(blocks, async (file) => {
        const result = await engine.runTool("read", { file_path: file });
        return result.ok
          ? { ok: true, text: result.output }
          : { ok: false, why: result.error?.message ?? "refused" };
      });
      if (this.#cancelled) return "cancelled";
      const result = await engine.run({ prompt, title, exitCodes: OUTCOME_EXIT_CODES });
      await this.flush();
      return this.#cancelled ? "cancelled" : stopReason(result.outcome);
    } finally {
      this.#busy = false;
      ended();
    }
  }

  /** `session/cancel`: the turn stops, its running command and every process it started with it. */
  cancel(): void {
    if (!this.#busy) return;
    this.#cancelled = true;
    this.#engine?.abort();
  }

  /** `session/set_mode`: the agent of the next prompt. */
  async setMode(modeId: string): Promise<void> {
    if (!this.modes().availableModes.some((mode) => mode.id === modeId)) {
      throw RequestError.invalidParams(
        { modeId },
        `no mode "${modeId}"; the modes are ${
          this.modes().availableModes.map((mode) => mode.id).join(", ")
        }`,
      );
    }
    if (this.#busy) {
      throw RequestError.invalidRequest(undefined, "switch modes between prompts, not during one");
    }
    if (modeId === this.spec.agent) return;
    await this.#engine?.close();
    this.#engine = undefined;
    this.spec = { ...this.spec, agent: modeId };
    this.#selector = { sessionId: this.id };
  }

  /** Stops a running turn, then lets go of the engine and the session it holds. */
  async close(): Promise<void> {
    if (this.#busy) {
      // As session/cancel: the turn ends as cancelled, then its engine goes. A turn that does
      // not end soon is cut by the engine's close.
      this.cancel();
      await Promise.race([this.#turnEnded, backgroundDelay(CLOSE_WAIT_MS)]);
    }
    await this.#engine?.close();
    this.#engine = undefined;
  }

  async #ensureEngine(): Promise<EngineHandle> {
    if (this.#engine) return this.#engine;
    const io: EngineIO = {
      event: (event) => {
        if (event.type === "warning") printErrorLine(`warning: ${event.message}`);
        for (const update of this.#translator.translate(event)) this.send(update);
      },
      ask: (request) => this.#ask(request),
      editor: this.#editorFiles(),
    };
    // The editor's person answers the questions: the session is attended.
    const engine = await startEngine({ ...this.spec, interactive: true }, io);
    try {
      this.id = await engine.open(this.#selector);
    } catch (error) {
      await engine.close();
      throw error;
    }
    this.#engine = engine;
    return engine;
  }

  /** `file` (a real path) as the editor names it: under its own spelling of the workspace. */
  #editorPath(file: string): string {
    const { workspace } = this.spec;
    const { editorRoot } = this.options;
    if (!path.isAbsolute(editorRoot) || !lexicallyWithin(workspace, file)) return file;
    return path.join(editorRoot, path.relative(workspace, file));
  }

  /** The editor's buffers as far as it offers them; undefined: the file tools use disk. */
  #editorFiles(): EditorFiles | undefined {
    const { fs, editorWait } = this.options;
    if (!fs.readTextFile && !fs.writeTextFile) return undefined;
    return {
      read: fs.readTextFile
        ? async (file) => {
          const answer = await boundedEditorCall(
            (options) =>
              this.client.request(
                "fs/read_text_file",
                { sessionId: this.id, path: this.#editorPath(file) },
                options,
              ),
            "fs/read_text_file",
            editorWait,
          );
          return answer.content;
        }
        : undefined,
      write: fs.writeTextFile
        ? async (file, text) => {
          await boundedEditorCall(
            (options) =>
              this.client.request(
                "fs/write_text_file",
                { sessionId: this.id, path: this.#editorPath(file), content: text },
                options,
              ),
            "fs/write_text_file",
            editorWait,
          );
        }
        : undefined,
    };
  }

  async #ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    if (this.#cancelled) return "interrupt";
    const question = permissionQuestion(this.id, request);
    // The tool line shows before its question.
    await this.flush();
    try {
      const response = await this.client.request("session/request_permission", question);
      return approvalAnswer(response.outcome, question.options);
    } catch {
      // No answer (the editor went away, or refused to ask): nothing runs unasked.
      return "deny";
    }
  }
}
