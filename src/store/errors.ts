/**
 * The store's one error type: what went wrong with the session database, in
 * words that tell the user what to do next.
 */
export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreError";
  }
}
