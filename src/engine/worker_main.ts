/**
 * The Worker side of the engine: runs the same in-process engine, under the
 * Deno permissions the terminal side derived from the sandbox mode, and
 * relays its events, approval questions and the file tools' editor requests
 * back by message.
 */
/// <reference lib="deno.worker" />
import type { EditorRequest, FromEngine, ToEngine } from "./protocol.ts";
import type { EditorFileOffer, EditorFiles } from "../contracts/editor_files.ts";
import type { ApprovalAnswer, ApprovalRequest } from "./types.ts";
import { RpcClient } from "../lib/rpc.ts";
import { type EngineHandle, type EngineModules, openStoreAhead, startInProcess } from "./handle.ts";
import { ConfinedWriterClient, type WriterLink } from "../sandbox/writer/confined_writer.ts";
import type { WriterReply } from "../sandbox/writer/writer_messages.ts";
import { routeFileWrites } from "../tools/files/mod.ts";
import { fromErrorData, toErrorData } from "../contracts/errors.ts";
import { collectGarbage } from "../lib/collect.ts";
import { WorkerMarks } from "../boot/timings.ts";

const post = (message: FromEngine) => self.postMessage(message);
/** SKIFF_TIMINGS: this Worker's moments, sent before its close's answer when `init` asked. */
const marks = new WorkerMarks();
marks.note("module");
let sendMarks = false;
/** `engine-loaded` is the Worker's once, not each session's (a kept Worker serves several). */
let engineLoaded = false;
/**
 * Written out, so they are in this Worker's module graph (its permissions do
 * not let it read skiff's sources to load anything else); evaluated only
 * when called, so `skiff tool` never evaluates the openai SDK.
 */
const modules: EngineModules = {
  engine: () =>
    import("./engine.ts").then((engine) => {
      if (!engineLoaded) marks.note("engine-loaded");
      engineLoaded = true;
      return engine;
    }),
  provider: () =>
    Promise.all([
      import("../provider/create_provider.ts"),
      import("../provider/cost.ts"),
      import("../provider/rate_limiter.ts"),
      import("../provider/dialects/model_dialect.ts"),
    ]),
};
let starting: Promise<EngineHandle> | undefined;
/** The event types the terminal side wants posted (undefined: all). */
let shown: Set<string> | undefined;
/** Approval questions to the terminal side, each answered by its id. */
const questions = new RpcClient<ApprovalRequest>((id, request) =>
  post({ type: "ask", id, request })
);
/** The file tools' reads from and writes to the editor, each answered by its id. */
const editorRequests = new RpcClient<EditorRequest>((id, request) =>
  post({ type: "editor", id, request })
);

/** The editor's side of the file tools, as far as the session's init offers it. */
function editorOver(offer: EditorFileOffer | undefined): EditorFiles | undefined {
  if (!offer || (!offer.read && !offer.write)) return undefined;
  return {
    read: offer.read ? (file) => editorRequests.request<string>({ op: "read", file }) : undefined,
    write: offer.write
      ? (file, text) => editorRequests.request<void>({ op: "write", file, text })
      : undefined,
  };
}

/** Where the terminal side's `files` replies go: the file tools' writer client. */
let fileReplies: ((reply: WriterReply) => void) | undefined;
/** Told when the terminal side's writer has died. */
let fileWriterGone: ((error: Error) => void) | undefined;
/** The confined writer, reached through the terminal side over this Worker's own channel. */
const terminalWriter: WriterLink = {
  send: (request) => post({ type: "files", request }),
  listen: (onReply, onGone) => {
    fileReplies = onReply;
    fileWriterGone = onGone;
  },
  close: () => fileReplies = fileWriterGone = undefined,
};

async function answer(id: number, work: () => Promise<unknown>): Promise<void> {
  try {
    post({ type: "result", id, value: await work() });
  } catch (error) {
    post({ type: "failure", id, error: toErrorData(error) });
  }
}

self.onmessage = (message: MessageEvent<ToEngine>) => {
  const data = message.data;
  switch (data.type) {
    case "warm":
      // A failure shows where it matters: when `init` loads the same modules. Once they
      // are in, what the session's opening would do first is done while `init` is awaited.
      void modules.engine().then(() => {
        if (data.dataDir) openStoreAhead(data.dataDir);
        // Deno loads its process API at first use: a model run's commands
        // come while the model is asked. A `skiff tool` call that runs none skips it.
        if (data.provider) void Deno.Command;
      }, () => {});
      if (data.provider) void modules.provider().then(warmModelRequest, () => {});
      break;
    case "warm-tool":
      // The call parses its input first thing: its schema is built before init comes,
      // and what the tool needs loaded (bash: the shell parser) starts loading.
      prepareOnce(data.name);
      break;
    case "init":
      marks.note("init");
      sendMarks = data.timings === true;
      // The file tools write through the confined writer's thread, which the
      // kernel keeps inside the writable folders (docs/security.md).
      if (data.files) routeFileWrites(new ConfinedWriterClient(terminalWriter));
      shown = data.events ? new Set(data.events) : undefined;
      starting = startInProcess(data.spec, {
        event: (event) => {
          if (!shown || shown.has(event.type)) post({ type: "event", event });
        },
        ask: (request) => questions.request<ApprovalAnswer>(request),
        editor: editorOver(data.editor),
      }, modules);
      break;
    case "open":
      void answer(data.id, async () => {
        const id = await (await ready()).open(data.selector);
        marks.note("session-open");
        return id;
      });
      break;
    case "run":
      void answer(data.id, async () => (await ready()).run(data.request));
      break;
    case "tool":
      // A call that came with the opening (JSON Lines): its tool prepares while the session opens.
      prepareOnce(data.name);
      void answer(data.id, async () => {
        const result = await (await ready()).runTool(data.name, data.input, {
          inOrder: data.inOrder,
          cancelId: data.cancelId,
          typedByPerson: data.typedByPerson,
        });
        marks.note("first-call");
        return result;
      });
      break;
    case "cancel-tool":
      void starting?.then((started) => started.cancelTool?.(data.cancelId), () => {});
      break;
    case "compact":
      void answer(data.id, async () => (await ready()).compact!(data.focus));
      break;
    case "idle":
      void starting?.then((started) => started.notifyIdle?.(), () => {});
      break;
    case "mcp-status":
      void answer(data.id, async () => (await ready()).mcpStatus!());
      break;
    case "close":
      void answer(data.id, async () => {
        try {
          return await (await ready()).close({ keepHold: data.keepHold, ending: data.ending });
        } finally {
          if (sendMarks) post({ type: "timings", marks: marks.take() });
        }
      });
      break;
    case "abort":
      // The engine may still be loading: abort it as soon as it exists.
      void starting?.then((started) => started.abort(), () => {});
      break;
    case "collect":
      collectGarbage();
      break;
    case "answer":
      questions.resolve(data.id, data.answer);
      break;
    case "files":
      fileReplies?.(data.reply);
      break;
    case "files-gone":
      fileWriterGone?.(new Error(data.message));
      break;
    case "editor":
      if (data.error) editorRequests.reject(data.id, fromErrorData(data.error));
      else editorRequests.resolve(data.id, data.text);
      break;
  }
};

/**
 * What a model run's first request loads on its way, loaded while the Worker
 * waits for its spec: fetch's own code (loaded at a thread's first fetch; a
 * `data:` URL, so nothing leaves the process and no permission is asked).
 * The request's timers are background ones (lib/background_ticks.ts),
 * which load nothing. Measured in docs/performance.md ("Start-up").
 */
function warmModelRequest(): void {
  void fetch("data:,").then((response) => response.text()).catch(() => {});
}

/** Tools whose preparation has begun (`prepareTool`): each once per Worker. */
const prepared = new Set<string>();

function prepareOnce(name: string): void {
  if (prepared.has(name)) return;
  prepared.add(name);
  void modules.engine().then((engine) => engine.prepareTool(name), () => {});
}

function ready(): Promise<EngineHandle> {
  if (!starting) return Promise.reject(new Error("the engine was not initialised"));
  return starting;
}
