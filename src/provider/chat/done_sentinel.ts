/**
 * Notices the `data: [DONE]` line that ends an event stream. The client
 * library stops reading at [DONE] and ends just as quietly when a connection
 * closes early, so on its own a finished answer without a finish_reason
 * (which some servers send) cannot be told from a stream cut short. This
 * wraps fetch so that one attempt's body is watched on its way through.
 */

/** `[\r\n]` first: JSON inside an event cannot hold a raw line break, so a match is a real line. */
const DONE_LINE = /[\r\n]data: ?\[DONE\]/;
/** Enough of the previous chunk to find a [DONE] line split across two chunks. */
const CARRY = 16;

export interface DoneWatch {
  /** Pass to the client for one attempt. */
  fetch: typeof fetch;
  /** True once a successful response's body has carried `data: [DONE]`. */
  seen(): boolean;
}

export function watchForDone(base: typeof fetch = globalThis.fetch): DoneWatch {
  let seen = false;
  const watched: typeof fetch = async (input, init) => {
    const response = await base(input, init);
    if (!response.ok || !response.body) return response;
    const decoder = new TextDecoder();
    let carry = "\n"; // the body's start counts as a line start
    const scan = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        if (seen) return;
        const text = carry + decoder.decode(chunk, { stream: true });
        if (DONE_LINE.test(text)) seen = true;
        carry = text.slice(-CARRY);
      },
    });
    return new Response(response.body.pipeThrough(scan), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { fetch: watched, seen: () => seen };
}
