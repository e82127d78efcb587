/** The chat's tool line counts the new errors a language server reported for a file tool's change. */
import { assertEquals } from "../support/assert.ts";
import { makeEvent } from "../../src/contracts/events.ts";
import { formatToolCall } from "../../src/ui/chat/tool_line.ts";
import { makeStyle } from "../../src/ui/chat/style.ts";

function edited(errors: number) {
  return makeEvent("tool.completed", "sess-1", {
    turn: 1,
    call_id: "c1",
    tool: "edit",
    ok: true,
    title: "src/app.ts (+1 -1)",
    output: "",
    duration_ms: 300,
    metadata: {
      diagnostics: {
        errors: Array.from({ length: errors }, (_, line) => ({
          path: "src/app.ts",
          line,
          column: 1,
          message: "wrong",
        })),
        busy: [],
        notes: [],
      },
    },
  });
}

Deno.test("the tool line of an edit shows how many new errors the language server found", () => {
  const plain = { style: makeStyle(false), columns: 79 };
  const head = (errors: number) =>
    formatToolCall(edited(errors), { file_path: "src/app.ts" }, plain)[0];
  assertEquals(head(2), "✓ edit src/app.ts (+1 -1) (2 new errors) 300ms");
  assertEquals(head(1), "✓ edit src/app.ts (+1 -1) (1 new error) 300ms");
  assertEquals(head(0), "✓ edit src/app.ts (+1 -1) 300ms");
});
