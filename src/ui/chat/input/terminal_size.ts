/**
 * Tells the chat when the terminal's size changes, so the bottom region is
 * redrawn at the new width: on SIGWINCH where the platform delivers it, and
 * by polling the size where it does not (Windows, or a runtime refusing the
 * listener).
 */

export interface TerminalSize {
  columns: number;
  rows: number;
}

export interface WatchOptions {
  /** @default Deno.addSignalListener / Deno.removeSignalListener for SIGWINCH */
  signals?: {
    add(handler: () => void): void;
    remove(handler: () => void): void;
  };
  /** How often the fallback polls (ms). @default 500 */
  pollMs?: number;
}

const sigwinch = {
  add: (handler: () => void) => Deno.addSignalListener("SIGWINCH", handler),
  remove: (handler: () => void) => Deno.removeSignalListener("SIGWINCH", handler),
};

/**
 * Calls `onChange` with the new size each time `read()` gives a different
 * one. Returns the function that stops watching.
 */
export function watchTerminalSize(
  read: () => TerminalSize,
  onChange: (size: TerminalSize) => void,
  options: WatchOptions = {},
): () => void {
  let last = read();
  const check = () => {
    const now = read();
    if (now.columns === last.columns && now.rows === last.rows) return;
    last = now;
    onChange(now);
  };
  const signals = options.signals ?? sigwinch;
  try {
    signals.add(check);
    return () => signals.remove(check);
  } catch {
    const timer = setInterval(check, options.pollMs ?? 500);
    return () => clearInterval(timer);
  }
}
