/**
 * The session's language servers: one per server definition, started at the
 * first changed file it checks, kept warm, stopped with the session. After a
 * tool changed files, `diagnose` tells each server the text before and after
 * and keeps the errors that are new, waiting no longer than a bound. A server
 * that is missing, crashes or hangs is reported once and left off.
 */
import type { Diagnostic } from "vscode-languageserver-protocol";
import { untilDeadline } from "./_deadline.ts";
import { fileUri, LanguageServer, type PrepareCommand } from "./server.ts";
import {
  languageIdOf,
  resolveProgram,
  type ServerConfig,
  type ServerDefinition,
  serverFor,
  serverTable,
} from "./servers.ts";
import type { ChangedFile, DiagnosticsReport, FileDiagnostic } from "./types.ts";

export interface SessionDiagnosticsOptions {
  workspace: string;
  /** Starts a command contained; undefined: no sandbox here, so no server runs. */
  prepare?: PrepareCommand;
  /** The `lsp` permission key's verdict on a server's name. */
  verdict: (server: string) => "allow" | "ask" | "deny";
  /** Config `lsp.servers`. */
  servers?: Record<string, ServerConfig>;
  /** @default 1500 */
  firstWaitMs?: number;
  /** @default 700 */
  waitMs?: number;
  /** Milliseconds a server may take to answer `initialize` before it counts as hung. @default 60000 */
  startLimitMs?: number;
  /**
   * Milliseconds a running server may publish nothing after a file was sent
   * to it before it counts as hung; slow is not hung, so far above any wait.
   * @default 30000
   */
  hungAfterMs?: number;
}

interface ServerState {
  server?: LanguageServer;
  ready?: Promise<void>;
  /** Set once the server is switched off: why. */
  off?: string;
  /** `off` was said in a tool's result. */
  offSaid: boolean;
  /** The first wait (its start included) is over. */
  warm: boolean;
}

/** One session's language servers. */
export class SessionDiagnostics {
  #options: SessionDiagnosticsOptions;
  #table: ServerDefinition[];
  #states = new Map<string, ServerState>();
  /**
   * Files whose last check found the server busy, by real path: the text
   * before that change. The next change to the file is checked against it,
   * so what the unchecked change broke is still reported as new.
   */
  #unchecked = new Map<string, string | null>();
  #closed = false;

  constructor(options: SessionDiagnosticsOptions) {
    this.#options = options;
    this.#table = serverTable(options.servers);
  }

  /** New errors in `files`, what is still busy and what to say once; never throws. */
  async diagnose(
    files: ChangedFile[],
    signal?: AbortSignal,
  ): Promise<DiagnosticsReport | undefined> {
    const report: DiagnosticsReport = { errors: [], busy: [], notes: [] };
    const checked = files.flatMap((file) => {
      const definition = serverFor(this.#table, file.real);
      return definition ? [{ file, definition }] : [];
    });
    if (checked.length === 0 || this.#closed) return undefined;
    const started = performance.now();
    await Promise.all(checked.map(async ({ file, definition }) => {
      const state = this.#stateOf(definition, report);
      if (!state) return;
      const deadline = started + (state.warm ? this.#waitMs : this.#firstWaitMs);
      const unchecked = this.#unchecked.has(file.real);
      const since = unchecked ? { ...file, before: this.#unchecked.get(file.real)! } : file;
      try {
        const errors = await this.#diagnoseFile(state, definition, since, deadline, signal);
        if (errors === undefined) {
          if (!unchecked) this.#unchecked.set(file.real, file.before);
          if (!report.busy.includes(definition.name)) report.busy.push(definition.name);
          const silent = state.server?.unansweredForMs() ?? 0;
          if (silent >= (this.#options.hungAfterMs ?? 30_000)) {
            const seconds = Math.round(silent / 1000);
            await this.#switchOff(
              state,
              definition,
              `it answered nothing for ${seconds} s`,
              report,
            );
          }
        } else {
          this.#unchecked.delete(file.real);
          report.errors.push(...errors);
        }
      } catch (error) {
        const why = state.server?.endedWith ??
          (error instanceof Error ? error.message : String(error));
        await this.#switchOff(state, definition, why, report);
      } finally {
        state.warm = true;
      }
    }));
    if (!report.errors.length && !report.busy.length && !report.notes.length) {
      return { errors: [], busy: [], notes: [] };
    }
    return report;
  }

  /** Starts `real`'s server and opens the file there with `text`, without waiting; never throws. */
  opened(real: string, text: string): void {
    const definition = serverFor(this.#table, real);
    if (!definition || this.#closed) return;
    const state = this.#stateOf(definition);
    const server = state?.server;
    if (!state || !server) return;
    const uri = fileUri(real);
    state.ready!.then(async () => {
      if (server.textOf(uri) !== undefined) return;
      await server.send(uri, languageIdOf(definition, real), text);
      // The text before the coming edit, checked while the model thinks.
      server.prefetch(uri);
    }).catch(() => {});
  }

  /** Stops every server; no server starts after. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#states.values()].map((state) => state.server?.stop()));
  }

  get #waitMs(): number {
    return this.#options.waitMs ?? 700;
  }

  get #firstWaitMs(): number {
    return this.#options.firstWaitMs ?? 1500;
  }

  /**
   * The server's state, starting it the first time; undefined when it may
   * not run or was switched off (said once, in the first `report` given).
   */
  #stateOf(definition: ServerDefinition, report?: DiagnosticsReport): ServerState | undefined {
    let state = this.#states.get(definition.name);
    if (!state) {
      state = { warm: false, offSaid: false };
      this.#states.set(definition.name, state);
      const refusal = this.#refusal(definition);
      if (refusal) state.off = refusal;
      else this.#start(state, definition);
    }
    if (state.off && !state.offSaid && report) {
      state.offSaid = true;
      report.notes.push(state.off);
    }
    return state.off ? undefined : state;
  }

  #start(state: ServerState, definition: ServerDefinition): void {
    const server = new LanguageServer(definition);
    state.server = server;
    const program = resolveProgram(definition.command[0], this.#options.workspace);
    state.ready = withLimit(
      server.start(program, this.#options.workspace, this.#options.prepare!),
      this.#options.startLimitMs ?? 60_000,
      "it did not answer initialize",
    );
    // A failure is read where the state is next awaited.
    state.ready.catch(() => {});
  }

  #refusal(definition: ServerDefinition): string | undefined {
    const name = definition.name;
    if (!this.#options.prepare) {
      return `Language server ${name} not started: no sandbox can contain it here, and it is never run uncontained.`;
    }
    const action = this.#options.verdict(name);
    if (action !== "allow") {
      return `Language server ${name} not started: the permission rule for lsp(${name}) says ${action} (allow it in the config's permission.lsp).`;
    }
    return undefined;
  }

  async #diagnoseFile(
    state: ServerState,
    definition: ServerDefinition,
    file: ChangedFile,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<FileDiagnostic[] | undefined> {
    const ready = await untilDeadline(state.ready!.then(() => true), deadline, signal);
    if (!ready) return undefined;
    const server = state.server!;
    const uri = fileUri(file.real);
    const languageId = languageIdOf(definition, file.real);
    let before: Diagnostic[] | undefined = [];
    // A server checks the text it holds when it gets to it, so the text after
    // is sent only once the answer about the text before is in.
    if (file.before !== null && server.textOf(uri) !== file.before) {
      const send = await server.send(uri, languageId, file.before);
      before = await server.diagnosticsAfter(uri, send, deadline, signal);
    } else if (file.before !== null) {
      before = server.latest(uri) ?? await server.diagnosticsAfter(uri, 0, deadline, signal);
    }
    if (server.endedWith) throw new Error(server.endedWith);
    if (before === undefined) return undefined;
    const send = await server.send(uri, languageId, file.after);
    const after = await server.diagnosticsAfter(uri, send, deadline, signal);
    if (server.endedWith) throw new Error(server.endedWith);
    if (after === undefined) return undefined;
    return newErrors(before, after).map((diagnostic) => ({
      path: file.display,
      line: diagnostic.range.start.line + 1,
      column: diagnostic.range.start.character + 1,
      message: messageText(diagnostic),
      code: diagnostic.code === undefined ? undefined : String(diagnostic.code),
      source: diagnostic.source,
    }));
  }

  async #switchOff(
    state: ServerState,
    definition: ServerDefinition,
    why: string,
    report: DiagnosticsReport,
  ): Promise<void> {
    if (state.off) return;
    state.off = `Language server ${definition.name} switched off for this session: ${
      why.replace(/[.\s]+$/, "")
    }.`;
    state.offSaid = true;
    report.notes.push(state.off);
    await state.server?.stop();
  }
}

/** Errors of `after` beyond those `before` had, matched by code and message (lines move). */
export function newErrors(before: Diagnostic[], after: Diagnostic[]): Diagnostic[] {
  const key = (diagnostic: Diagnostic) =>
    `${diagnostic.code ?? ""}\u0000${messageText(diagnostic)}`;
  const seen = new Map<string, number>();
  for (const diagnostic of before.filter(isError)) {
    seen.set(key(diagnostic), (seen.get(key(diagnostic)) ?? 0) + 1);
  }
  return after.filter(isError).filter((diagnostic) => {
    const left = seen.get(key(diagnostic)) ?? 0;
    if (left === 0) return true;
    seen.set(key(diagnostic), left - 1);
    return false;
  });
}

function messageText(diagnostic: Diagnostic): string {
  return typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value;
}

function isError(diagnostic: Diagnostic): boolean {
  return (diagnostic.severity ?? 1) === 1;
}

/** `work`, failing with `message` when it takes longer than `ms`. */
function withLimit<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  // The start goes on after the edit returns: the limit must not keep a test's process.
  Deno.unrefTimer(timer!);
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
