/**
 * neutraliseControls: every character a terminal would act on is written
 * out visibly, the rest of the text (tabs, newlines, any script) is left as
 * it was; and the transcript printed by `skiff sessions show` goes through it.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { neutraliseControls } from "../../src/ui/safe_text.ts";
import { renderMarkdown } from "../../src/cli/sessions/sessions.ts";
import type { StoredMessage } from "../../src/engine/loop/history.ts";
import type { Session } from "../../src/store/store.ts";

Deno.test("escape sequences, carriage returns, C1 controls and bidi overrides are shown, not obeyed", () => {
  assertEquals(
    neutraliseControls("git status\r\x1b[2Krm -rf ~"),
    "git status\\r\\x1b[2Krm -rf ~",
  );
  assertEquals(neutraliseControls("\x1b]0;title\x07\x1b\\"), "\\x1b]0;title\\x07\\x1b\\");
  assertEquals(
    neutraliseControls("\x00\x08\x0b\x0c\x7f\x80\x9b\x9f"),
    "\\x00\\x08\\x0b\\x0c\\x7f\\x80\\x9b\\x9f",
  );
  assertEquals(
    neutraliseControls("a\u202ab\u202bc\u202cd\u202de\u202ef\u2066g\u2067h\u2068i\u2069"),
    "a\\u202ab\\u202bc\\u202cd\\u202de\\u202ef\\u2066g\\u2067h\\u2068i\\u2069",
  );
});

Deno.test("tabs, newlines and ordinary text of any script pass unchanged", () => {
  const plain = "line one\n\tindented — café, 日本語, עברית, emoji 🚀, a \\ backslash\n";
  assertEquals(neutraliseControls(plain), plain);
  // Applying it twice changes nothing more: its output holds no control character.
  const once = neutraliseControls("\x1b[31mred\r\n");
  assertEquals(neutraliseControls(once), once);
});

Deno.test("sessions show: the transcript shows the model's escape sequences visibly", () => {
  const session = {
    id: "ses_1",
    workspace: "/w",
    model: "m",
    agent: "build",
    status: "completed",
    input_tokens: 1,
    output_tokens: 2,
  } as Session;
  const messages = [
    { role: "assistant", parts: [{ type: "text", text: "ok\x1b[2J\x1b]0;owned\x07" }] },
    {
      role: "assistant",
      parts: [{ type: "tool_call", id: "c1", name: "bash", arguments: '{"command":"ls\\r"}' }],
    },
    {
      role: "tool",
      parts: [{ type: "tool_result", call_id: "c1", tool: "bash", ok: true, output: "a\u202eb" }],
    },
  ] as unknown as StoredMessage[];
  const shown = renderMarkdown(session, messages);
  assertStringIncludes(shown, "ok\\x1b[2J\\x1b]0;owned\\x07");
  assertStringIncludes(shown, "a\\u202eb");
  // deno-lint-ignore no-control-regex -- looking for control characters
  assert(!/[\x1b\x07\u202e]/.test(shown), JSON.stringify(shown));
});
