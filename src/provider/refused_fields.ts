/**
 * Optional request fields a server refused for a model: a field skiff can do
 * without (the Responses API's reasoning summary and encrypted reasoning, a
 * reasoning effort) is left out and the request asked again, once, and the
 * field is not sent to that model again for as long as the client lives.
 * One memory for both wire protocols, so what a server said of a model holds
 * whichever body is written for it.
 */
export class RefusedFields {
  #refused = new Set<string>();

  /** Whether `field` may still be sent for `model`. */
  allows(model: string, field: string): boolean {
    return !this.#refused.has(`${model}\n${field}`);
  }

  /**
   * The server refused `field` for `model`: not sent again. False when it
   * was already known, so a request is asked again at most once per field.
   */
  refuse(model: string, field: string): boolean {
    const key = `${model}\n${field}`;
    if (this.#refused.has(key)) return false;
    this.#refused.add(key);
    return true;
  }
}
