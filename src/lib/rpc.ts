/**
 * Requests to a peer (a Worker, or a thread's channel to one) matched to
 * their replies by id. It knows nothing of the messages: the caller posts
 * each request with the id it is given, and hands each reply back by that
 * id. Once the peer is gone, every waiting request and every later one
 * fails with the same error, so nothing waits for an answer that cannot
 * come.
 */

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The one shape of a peer's death: `what` failed, why, and what to do next. */
export function peerCrashed(peer: string, detail: string, next?: string): Error {
  return new Error(`${peer} crashed: ${detail.replace(/\.$/, "")}.${next ? ` ${next}` : ""}`);
}

/**
 * The requests sent to one peer and not yet answered. `post` sends a
 * request under its id; it is not called once the peer is gone.
 */
export class RpcClient<Request> {
  #nextId = 1;
  readonly #pending = new Map<number, Waiter>();
  #failure: Error | undefined;

  constructor(private readonly post: (id: number, request: Request) => void) {}

  /** Sends `request`; resolves to its reply's value, or rejects with its error. */
  request<T>(request: Request): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#failure) return reject(this.#failure);
      const id = this.#nextId++;
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.post(id, request);
    });
  }

  /** The reply to request `id` succeeded; a reply to no waiting request is dropped. */
  resolve(id: number, value: unknown): void {
    this.#take(id)?.resolve(value);
  }

  /** The reply to request `id` failed with `error`. */
  reject(id: number, error: Error): void {
    this.#take(id)?.reject(error);
  }

  /**
   * The peer is gone (crashed, ended, closed): every waiting request, and
   * every later one, rejects with `error`. The first failure stays.
   */
  fail(error: Error): void {
    this.#failure ??= error;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const waiter of waiting) waiter.reject(this.#failure);
  }

  /** Why the peer is gone; undefined while it may still answer. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** How many requests wait for their reply. */
  get waiting(): number {
    return this.#pending.size;
  }

  #take(id: number): Waiter | undefined {
    const waiter = this.#pending.get(id);
    this.#pending.delete(id);
    return waiter;
  }
}
