/**
 * The store's one error type: what went wrong with the session database, in
 * words that tell the user what to do next.
 */
import { SkiffError } from "../contracts/errors.ts";

export class StoreError extends SkiffError {
  constructor(message: string) {
    super("store", message);
    this.name = "StoreError";
  }
}
