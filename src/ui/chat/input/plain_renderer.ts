/**
 * A plain ChatRenderer (src/ui/chat/mod.ts) for the input side to draw
 * through when the full renderer is not loaded: events as `skiff run` prints
 * them, and the input area redrawn under them. Used by tests of the input
 * and as a fallback.
 */
import type { SkiffEvent } from "../../../contracts/events.ts";
import { textRenderer } from "../../text.ts";
import { neutraliseControls } from "../../safe_text.ts";
import type { ChatOutput, ChatRenderer } from "../mod.ts";

const encoder = new TextEncoder();

export function plainChatRenderer(output: ChatOutput = Deno.stdout): ChatRenderer {
  /** Rows of the bottom region drawn last, and the cursor's row in it. */
  let drawn = { rows: 0, cursorRow: 0 };
  let input = { text: "", cursor: 0, hint: undefined as string | undefined };
  let suspended = false;
  const write = (text: string) => {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += output.writeSync(bytes.subarray(written));
  };
  const erase = () => {
    if (!drawn.rows) return;
    write(`${drawn.cursorRow ? `\x1b[${drawn.cursorRow}A` : ""}\r\x1b[J`);
    drawn = { rows: 0, cursorRow: 0 };
  };
  const draw = () => {
    if (suspended) return;
    erase();
    const lines = input.text.split("\n").map((line, index) =>
      `${index === 0 ? "> " : "  "}${neutraliseControls(line)}`
    );
    const hint = input.hint ? [neutraliseControls(input.hint)] : [];
    write([...lines, ...hint].join("\n"));
    const before = input.text.slice(0, input.cursor).split("\n");
    const cursorRow = before.length - 1;
    const up = lines.length + hint.length - 1 - cursorRow;
    write(
      `${up ? `\x1b[${up}A` : ""}\r${
        before.at(-1)!.length + 2 ? `\x1b[${before.at(-1)!.length + 2}C` : ""
      }`,
    );
    drawn = { rows: lines.length + hint.length, cursorRow };
  };
  const sink = {
    writeSync(data: Uint8Array) {
      erase();
      output.writeSync(data);
      return data.length;
    },
  };
  const events = textRenderer({ stdout: sink, stderr: sink, progressEveryMs: 0 });
  return {
    event(event: SkiffEvent) {
      events(event);
    },
    setInput(text, cursor, hint) {
      input = { text, cursor, hint };
      draw();
    },
    setStatus() {},
    print(text) {
      erase();
      write(`${text.endsWith("\n") ? text : `${text}\n`}`);
      draw();
    },
    expandTool() {},
    resize() {
      draw();
    },
    suspend() {
      erase();
      suspended = true;
    },
    resume() {
      suspended = false;
      draw();
    },
    dispose() {
      erase();
    },
  };
}
