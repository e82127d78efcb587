/**
 * The confined writer: the file tools' writes (and `skiff undo`'s) carried
 * out on a Worker thread that Landlock keeps inside the writable folders.
 * skiff resolves every path and checks it before writing, but a process can
 * swap a folder for a symlink between that check and the write; Deno checks
 * only the path string, so the write would follow the link out. The kernel
 * checks the real path at the moment of the write and refuses it.
 *
 * The restriction sits on its own thread because a Landlock-restricted
 * thread cannot mount, and the engine's thread starts bubblewrap. Where
 * Landlock is missing (not Linux, an older or configured-out kernel) the
 * writer still serves, and only skiff's own checks and Deno's path-string
 * permissions stand: `confinement` says which.
 */
import type { AtomicWrites } from "../../lib/atomic_write.ts";
import type { LandlockResult } from "../landlock/landlock.ts";
import { peerCrashed, RpcClient } from "../../lib/rpc.ts";
import { fromRoot } from "../../contracts/entry.ts";
import type { WriterInit, WriterOut, WriterReply, WriterRequest } from "./writer_messages.ts";

/**
 * What carries a client's requests to the writer and its replies back: the
 * writer's Worker here, or the engine Worker's own channel to the terminal
 * side (worker_main.ts), which passes them on. No MessagePort is handed
 * across: Deno loads its Web Streams at a process's first transfer, on
 * the way to every session (docs/performance.md).
 */
export interface WriterLink {
  send(request: WriterRequest): void;
  /**
   * Sets the one handler of the writer's replies, and of its death
   * (`onGone`): no reply will come after it.
   */
  listen(onReply: (reply: WriterReply) => void, onGone?: (error: Error) => void): void;
  close(): void;
}

export interface ConfinedWriter {
  /** The writer's requests and replies: hand it to a `ConfinedWriterClient`. */
  link: WriterLink;
  /** Whether the kernel confines the writer, and if not, why. */
  confinement: Promise<LandlockResult>;
  close(): void;
}

/**
 * Start the writer's Worker for `writable` (absolute folders). Its Deno
 * permissions: read and write on those folders, and FFI, which it uses once
 * to restrict itself and then revokes. Needs `--allow-ffi` in this process.
 * `workerModule` is replaceable for tests.
 */
export function startConfinedWriter(
  writable: string[],
  // Named from the root, alike from the sources and the bundle (src/contracts/entry.ts).
  workerModule: URL = fromRoot("src/sandbox/writer/confined_writer_worker.ts"),
): ConfinedWriter {
  const worker = new Worker(workerModule, {
    type: "module",
    name: "skiff-file-writer",
    deno: {
      permissions: {
        read: writable.length ? writable : false,
        write: writable.length ? writable : false,
        ffi: true,
        net: false,
        env: false,
        run: false,
        sys: false,
        import: false,
      },
    },
  });
  let onReply: ((reply: WriterReply) => void) | undefined;
  let onGone: ((error: Error) => void) | undefined;
  let closed = false;
  const confinement = new Promise<LandlockResult>((resolve) => {
    worker.onmessage = (message: MessageEvent<WriterOut>) => {
      if (message.data.type === "confinement") resolve(message.data.result);
      else onReply?.(message.data.reply);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      resolve({ kind: "unavailable", reason: `the writer failed to start: ${event.message}` });
      const gone = onGone;
      close();
      gone?.(
        peerCrashed(
          "the file writer",
          event.message,
          "The file tools cannot write until the session starts again.",
        ),
      );
    };
  });
  const init: WriterInit = { writable };
  worker.postMessage(init);
  const close = () => {
    if (closed) return;
    closed = true;
    onReply = undefined;
    onGone = undefined;
    worker.terminate();
  };
  return {
    link: {
      send: (request) => {
        if (!closed) worker.postMessage(request);
      },
      listen: (replies, gone) => {
        onReply = replies;
        onGone = gone;
      },
      close,
    },
    confinement,
    close,
  };
}

/** The file tools' side of the link: `AtomicWrites` answered by the writer. */
export class ConfinedWriterClient implements AtomicWrites {
  readonly #rpc: RpcClient<WriterOp>;

  constructor(private readonly link: WriterLink) {
    this.#rpc = new RpcClient((id, op) => link.send({ ...op, id }));
    link.listen(
      (reply) =>
        reply.ok
          ? this.#rpc.resolve(reply.id, undefined)
          : this.#rpc.reject(reply.id, reviveError(reply.error)),
      (error) => this.#rpc.fail(error),
    );
  }

  write(file: string, bytes: Uint8Array, mode?: number): Promise<void> {
    return this.#rpc.request({ op: "write", file, bytes, ...(mode !== undefined ? { mode } : {}) });
  }

  remove(file: string): Promise<void> {
    return this.#rpc.request({ op: "remove", file });
  }

  close(): void {
    this.link.close();
    this.#rpc.fail(new Error("the file writer was closed"));
  }
}

/** A request to the writer before it gets its id. */
type WriterOp = WriterRequest extends infer M ? M extends { id: number } ? Omit<M, "id"> : never
  : never;

/** Deno's error classes survive the channel, so callers can tell NotFound from NotCapable. */
function reviveError(data: { name: string; message: string }): Error {
  const known = (Deno.errors as unknown as Record<string, new (message: string) => Error>)[
    data.name
  ];
  const error = known ? new known(data.message) : new Error(data.message);
  if (!known) error.name = data.name;
  return error;
}
