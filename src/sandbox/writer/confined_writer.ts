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
import { fromRoot } from "../../contracts/entry.ts";

export interface WriterInit {
  writable: string[];
}

export type WriterRequest =
  | { id: number; op: "write"; file: string; bytes: Uint8Array; mode?: number }
  | { id: number; op: "remove"; file: string };

export type WriterReply =
  | { id: number; ok: true }
  | { id: number; ok: false; error: { name: string; message: string } };

/** What the writer's Worker posts: its confinement once, then a reply per request. */
export type WriterOut =
  | { type: "confinement"; result: LandlockResult }
  | { type: "reply"; reply: WriterReply };

/**
 * What carries a client's requests to the writer and its replies back: the
 * writer's Worker here, or the engine Worker's own channel to the terminal
 * side (worker_main.ts), which passes them on. No MessagePort is handed
 * across: Deno loads its Web Streams at a process's first transfer, 3–6 ms
 * on the way to every session.
 */
export interface WriterLink {
  send(request: WriterRequest): void;
  /** Sets the one handler of the writer's replies. */
  listen(onReply: (reply: WriterReply) => void): void;
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
  // From the root ("../../"), the root from the bundle's folder too (src/boot/bundle.ts).
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
  let closed = false;
  const confinement = new Promise<LandlockResult>((resolve) => {
    worker.onmessage = (message: MessageEvent<WriterOut>) => {
      if (message.data.type === "confinement") resolve(message.data.result);
      else onReply?.(message.data.reply);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      resolve({ kind: "unavailable", reason: `the writer failed to start: ${event.message}` });
    };
  });
  const init: WriterInit = { writable };
  worker.postMessage(init);
  const close = () => {
    if (closed) return;
    closed = true;
    onReply = undefined;
    worker.terminate();
  };
  return {
    link: {
      send: (request) => {
        if (!closed) worker.postMessage(request);
      },
      listen: (handler) => onReply = handler,
      close,
    },
    confinement,
    close,
  };
}

/** The file tools' side of the link: `AtomicWrites` answered by the writer. */
export class ConfinedWriterClient implements AtomicWrites {
  #nextId = 1;
  #pending = new Map<number, { resolve(): void; reject(error: Error): void }>();

  constructor(private readonly link: WriterLink) {
    link.listen((reply) => {
      const waiter = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (!waiter) return;
      if (reply.ok) waiter.resolve();
      else waiter.reject(reviveError(reply.error));
    });
  }

  write(file: string, bytes: Uint8Array, mode?: number): Promise<void> {
    return this.#send({ op: "write", file, bytes, ...(mode !== undefined ? { mode } : {}) });
  }

  remove(file: string): Promise<void> {
    return this.#send({ op: "remove", file });
  }

  close(): void {
    this.link.close();
    const closed = new Error("the file writer was closed");
    for (const waiter of this.#pending.values()) waiter.reject(closed);
    this.#pending.clear();
  }

  #send(
    request:
      | Omit<Extract<WriterRequest, { op: "write" }>, "id">
      | Omit<Extract<WriterRequest, { op: "remove" }>, "id">,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      this.#pending.set(id, { resolve, reject });
      this.link.send({ ...request, id } as WriterRequest);
    });
  }
}

/** Deno's error classes survive the channel, so callers can tell NotFound from NotCapable. */
function reviveError(data: { name: string; message: string }): Error {
  const known = (Deno.errors as unknown as Record<string, new (message: string) => Error>)[
    data.name
  ];
  const error = known ? new known(data.message) : new Error(data.message);
  if (!known) error.name = data.name;
  return error;
}
