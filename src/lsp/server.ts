/**
 * One running language server: started through the session's contained
 * launcher like a command, spoken to over stdio with vscode-jsonrpc, told
 * about files as full text. The diagnostics of the text sent last are asked
 * for where the server can be asked (pull.ts), else its published ones are
 * kept per file so a caller can wait for them, up to a deadline.
 */
import { backgroundDelay } from "../lib/background_ticks.ts";
import { Readable, Writable } from "node:stream";
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";
import type {
  Diagnostic,
  InitializeParams,
  InitializeResult,
  PublishDiagnosticsParams,
} from "vscode-languageserver-protocol";
import { DiagnosticsAsker, type PullKind, pullKindOf } from "./pull.ts";
import { untilDeadline } from "./_deadline.ts";
import { spawn } from "../lib/spawn.ts";
import { shellQuote } from "../permission/hints.ts";
import type { ServerDefinition } from "./servers.ts";

/** Turns a shell command line into the contained argv and environment (the launcher's `prepare`). */
export type PrepareCommand = (
  command: string,
  cwd: string,
) => Promise<{ argv: string[]; env: Record<string, string> }>;

/**
 * Quiet time after a publish without a version before it counts as the whole
 * answer (a server may publish syntax errors first, type errors after); the
 * first check of a file, often a project's first, takes longer between them.
 */
const SETTLE_MS = 150;
const FIRST_SETTLE_MS = 400;
/** How long an exit waits for the server's last stderr, to say why it ended. */
const EXIT_WORDS_MS = 300;

/** How much of the server's stderr is kept to explain a failed start. */
const STDERR_KEEP = 2000;

interface Published {
  diagnostics: Diagnostic[];
  version?: number;
  /** Which of our sends of the file it followed. */
  send: number;
  /** When it came (`performance.now()`). */
  at: number;
}

interface OpenDocument {
  version: number;
  text: string;
  /** Counts didOpen and didChange of this file. */
  sends: number;
  /** When the last one went (`performance.now()`). */
  sentAt: number;
}

/** `real` as a file URI. */
export function fileUri(real: string): string {
  return "file://" + real.split("/").map(encodeURIComponent).join("/");
}

/** A language server process and its connection. */
export class LanguageServer {
  readonly definition: ServerDefinition;
  /** Resolves once the process has ended, with why. */
  readonly ended: Promise<string>;
  #child?: Deno.ChildProcess;
  #connection?: MessageConnection;
  #stderr = "";
  #documents = new Map<string, OpenDocument>();
  #published = new Map<string, Published>();
  /** Set when the server can be asked for diagnostics. */
  #asker?: DiagnosticsAsker;
  #listeners = new Set<() => void>();
  #endedWith?: string;
  #stopped = false;
  /** The first send since the server last published anything, when there is one. */
  #unansweredSince?: number;
  #end!: (why: string) => void;

  constructor(definition: ServerDefinition) {
    this.definition = definition;
    this.ended = new Promise((resolve) => this.#end = resolve);
    this.ended.then((why) => this.#endedWith = why);
  }

  /** Why the server is gone, or undefined while it runs. */
  get endedWith(): string | undefined {
    return this.#endedWith;
  }

  /**
   * Starts the program (already resolved) in `workspace` through `prepare`
   * and completes `initialize`. Needs --allow-run for the launcher's program.
   */
  async start(program: string, workspace: string, prepare: PrepareCommand): Promise<void> {
    const words = [program, ...this.definition.command.slice(1)];
    // A fresh private folder: a fixed name in a shared /tmp could be another user's.
    const cache = this.definition.cacheInTemp ? ['XDG_CACHE_HOME="$(mktemp -d)"'] : [];
    const line = [...cache, "exec", ...words.map(shellQuote)].join(" ");
    const prepared = await prepare(line, workspace);
    if (this.#stopped) throw new Error("the session ended before it started");
    const child = spawn(prepared.argv[0], {
      args: prepared.argv.slice(1),
      env: prepared.env,
      cwd: workspace,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
    this.#child = child;
    const stderrRead = this.#keepStderr(child.stderr);
    child.status.then(async (status) => {
      // Its last words explain the exit: read them first, for a moment at most.
      await Promise.race([stderrRead, backgroundDelay(EXIT_WORDS_MS)]);
      this.#end(
        status.code === 127
          ? `${
            this.definition.command[0]
          } is not installed (not in the workspace's node_modules/.bin nor on PATH)`
          : `it exited (status ${status.code})${this.#stderrTail()}`,
      );
    }).catch(() => this.#end("it could not be watched"));
    const stdin = child.stdin.getWriter();
    const connection = createMessageConnection(
      new StreamMessageReader(Readable.fromWeb(child.stdout as never)),
      new StreamMessageWriter(
        new Writable({
          write(chunk, _encoding, done) {
            stdin.write(chunk).then(() => done(), done);
          },
        }),
      ),
    );
    this.#connection = connection;
    connection.onNotification(
      "textDocument/publishDiagnostics",
      (params: PublishDiagnosticsParams) => this.#onPublish(params),
    );
    // Servers ask for settings and register features; defaults suit diagnostics.
    connection.onRequest(
      "workspace/configuration",
      (params: { items?: unknown[] }) => (params.items ?? []).map(() => null),
    );
    connection.onRequest("workspace/workspaceFolders", () => [
      { uri: fileUri(workspace), name: "workspace" },
    ]);
    connection.onRequest(() => null);
    connection.onNotification(() => {});
    connection.onError(() => {});
    // A closed pipe usually means the process ended: its exit, said above, explains more.
    connection.onClose(() => {
      if (this.#stopped) return this.#end("the session ended");
      void backgroundDelay(EXIT_WORDS_MS * 2).then(() =>
        this.#end(`its connection closed${this.#stderrTail()}`)
      );
    });
    connection.listen();
    const params: InitializeParams = {
      processId: null,
      rootUri: fileUri(workspace),
      workspaceFolders: [{ uri: fileUri(workspace), name: "workspace" }],
      initializationOptions: this.definition.initializationOptions,
      capabilities: {
        textDocument: {
          synchronization: { didSave: false },
          publishDiagnostics: { versionSupport: true },
          diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
        },
        workspace: { configuration: true, workspaceFolders: true },
      },
    };
    try {
      const result = await Promise.race([
        connection.sendRequest<InitializeResult>("initialize", params),
        this.ended.then((why) => Promise.reject(new Error(why))),
      ]);
      const kind = pullKindOf(this.definition, result?.capabilities);
      // Any answer, an error too, shows the server is not hung.
      const answered = () => this.#unansweredSince = undefined;
      if (kind) this.#asker = new DiagnosticsAsker(connection, kind, answered);
    } catch (error) {
      // Writing to a server that already exited fails with a broken pipe; why it exited says more.
      const why = await Promise.race([
        this.ended,
        backgroundDelay(EXIT_WORDS_MS * 3).then(() => undefined),
      ]);
      throw why === undefined ? error : new Error(why);
    }
    await connection.sendNotification("initialized", {});
  }

  /** How long the server has published nothing since a file was sent to it (0: it answered). */
  unansweredForMs(): number {
    return this.#unansweredSince === undefined ? 0 : performance.now() - this.#unansweredSince;
  }

  /** The text this server last got for `uri`, or undefined when it never opened it. */
  textOf(uri: string): string | undefined {
    return this.#documents.get(uri)?.text;
  }

  /** Sends `text` as the file's content (opening it the first time); returns the send's number. */
  async send(uri: string, languageId: string, text: string): Promise<number> {
    const connection = this.#connection;
    if (!connection) throw new Error("the server was not started");
    const open = this.#documents.get(uri);
    if (!open) {
      const document = { version: 1, text, sends: 1, sentAt: performance.now() };
      this.#unansweredSince ??= document.sentAt;
      this.#documents.set(uri, document);
      await connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId, version: 1, text },
      });
      return document.sends;
    }
    open.version++;
    open.sends++;
    open.sentAt = performance.now();
    this.#unansweredSince ??= open.sentAt;
    open.text = text;
    await connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: open.version },
      contentChanges: [{ text }],
    });
    return open.sends;
  }

  /** How the server is asked for diagnostics; undefined: it is waited for. */
  get pullKind(): PullKind | undefined {
    return this.#asker?.kind;
  }

  /**
   * Asks for the diagnostics of the text sent last of `uri`, once per text,
   * without waiting, so that a later caller finds them; nothing for a server
   * that cannot be asked.
   */
  prefetch(uri: string): void {
    void this.#pull(uri);
  }

  /**
   * The diagnostics of the text sent last of `uri`, when known: asked and
   * answered, or published and nothing has followed for the settling time.
   */
  latest(uri: string): Diagnostic[] | undefined {
    const document = this.#documents.get(uri);
    const asked = document && this.#asker?.answered(uri, document.version);
    if (asked) return asked;
    const published = this.#published.get(uri);
    if (!document || !published || published.send < document.sends) return undefined;
    if (published.version !== undefined) {
      return published.version < document.version ? undefined : published.diagnostics;
    }
    if (this.#early(published, document)) return undefined;
    const settled = performance.now() - published.at >= this.#settleMs(document);
    return settled ? published.diagnostics : undefined;
  }

  /**
   * The diagnostics published for send `send` of `uri` (or a later one), or
   * undefined when none came by `deadline` (a `performance.now()` time).
   */
  async diagnosticsAfter(
    uri: string,
    send: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<Diagnostic[] | undefined> {
    const document = this.#documents.get(uri);
    const version = document?.version;
    const asked = this.#pull(uri);
    if (asked) {
      const diagnostics = await untilDeadline(asked, deadline, signal);
      if (diagnostics !== null) return diagnostics;
      // Asking failed: what the server publishes counts, while it is about this text.
      if (document?.version !== version) return undefined;
    }
    const answered = () => {
      const published = this.#published.get(uri);
      if (!published || published.send < send) return undefined;
      if (published.version === undefined && document && this.#early(published, document)) {
        return undefined;
      }
      if (published.version !== undefined && document && published.version < document.version) {
        return undefined;
      }
      return published;
    };
    let last: Published | undefined;
    let settledAt = Infinity;
    while (!signal?.aborted && this.#endedWith === undefined) {
      const now = performance.now();
      const found = answered();
      if (found && found.version !== undefined) return found.diagnostics;
      if (found && found !== last) {
        // A server that numbers no version may publish in steps (syntax, then types).
        last = found;
        settledAt = now + this.#settleMs(document);
      }
      if (last && now >= settledAt) return last.diagnostics;
      if (now >= deadline) return last?.diagnostics;
      await this.#nextEvent(Math.min(deadline, settledAt) - now);
    }
    return undefined;
  }

  /**
   * Ends the process at once, or keeps it from starting: it sees the
   * workspace read-only and holds nothing to save, so a polite shutdown would
   * only make the session's end wait. Never throws.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#connection?.dispose();
    const child = this.#child;
    if (!child) return;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status.catch(() => {});
  }

  /** Came sooner than the server checks after a change: the answer for an earlier text. */
  #early(published: Published, document: OpenDocument): boolean {
    return published.at < document.sentAt + (this.definition.checkDelayMs ?? 0);
  }

  /**
   * The answer asked for the text sent last of `uri` (asking once per text):
   * its diagnostics, or null when asking failed; undefined for a server that
   * cannot be asked.
   */
  #pull(uri: string): Promise<Diagnostic[] | null> | undefined {
    const document = this.#documents.get(uri);
    return document && this.#asker?.ask(uri, document.version);
  }

  #settleMs(document: OpenDocument | undefined): number {
    return document?.sends === 1 ? FIRST_SETTLE_MS : SETTLE_MS;
  }

  #onPublish(params: PublishDiagnosticsParams): void {
    this.#unansweredSince = undefined;
    const document = this.#documents.get(params.uri);
    this.#published.set(params.uri, {
      diagnostics: params.diagnostics,
      version: params.version ?? undefined,
      send: document?.sends ?? 0,
      at: performance.now(),
    });
    for (const listener of this.#listeners) listener();
  }

  #nextEvent(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#listeners.add(done);
      this.ended.then(done);
    });
  }

  async #keepStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_KEEP);
      }
    } catch {
      // The process ended.
    }
  }

  #stderrTail(): string {
    const tail = this.#stderr.trim().split("\n").slice(-3).join(" / ");
    return tail ? `: ${tail}` : "";
  }
}
