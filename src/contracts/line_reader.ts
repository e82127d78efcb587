/**
 * Lines of a byte stream, one per `next()`: what a child process answers on
 * a pipe. Imports nothing.
 */

export interface LineReader {
  /** The next line without its newline; at the end, what is left, then null. */
  next(): Promise<string | null>;
}

/** A failed read ends the lines, as the stream's end does. The read keeps no event loop alive once its child is unref'd. */
export function lineReader(stream: ReadableStream<Uint8Array>): LineReader {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async next(): Promise<string | null> {
      for (;;) {
        const end = buffered.indexOf("\n");
        if (end >= 0) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          return line;
        }
        const { done, value } = await reader.read().catch(() => ({ done: true, value: "" }));
        if (done) {
          const rest = buffered;
          buffered = "";
          return rest || null;
        }
        buffered += value;
      }
    },
  };
}
