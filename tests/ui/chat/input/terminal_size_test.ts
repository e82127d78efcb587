/**
 * Resize detection: a SIGWINCH-style signal reports a changed size once, an
 * unchanged one not at all; without signals the size is polled.
 */
import { assertEquals } from "../../../support/assert.ts";
import {
  type TerminalSize,
  watchTerminalSize,
} from "../../../../src/ui/chat/input/terminal_size.ts";

Deno.test("resize: each signal with a new size reports it once; stop removes the listener", () => {
  let size: TerminalSize = { columns: 80, rows: 24 };
  const handlers = new Set<() => void>();
  const seen: TerminalSize[] = [];
  const stop = watchTerminalSize(() => size, (next) => seen.push(next), {
    signals: { add: (h) => handlers.add(h), remove: (h) => handlers.delete(h) },
  });
  const signal = () => handlers.forEach((handler) => handler());
  signal();
  size = { columns: 60, rows: 24 };
  signal();
  signal();
  size = { columns: 60, rows: 30 };
  signal();
  assertEquals(seen, [{ columns: 60, rows: 24 }, { columns: 60, rows: 30 }]);
  stop();
  assertEquals(handlers.size, 0);
});

Deno.test("resize: with no signal to listen to, the size is polled", async () => {
  let size: TerminalSize = { columns: 80, rows: 24 };
  const seen: TerminalSize[] = [];
  const stop = watchTerminalSize(() => size, (next) => seen.push(next), {
    signals: {
      add: () => {
        throw new Error("not on this platform");
      },
      remove: () => {},
    },
    pollMs: 5,
  });
  size = { columns: 100, rows: 24 };
  const deadline = Date.now() + 5_000;
  while (!seen.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  stop();
  assertEquals(seen, [{ columns: 100, rows: 24 }]);
});
