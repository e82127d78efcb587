/**
 * What a handoff must hold whatever the model wrote: the user's words byte
 * for byte (multi-line ones too) and every file the session changed.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { missingUserWords, summarise } from "../../../src/engine/context/summary.ts";
import { CHANGED_FILES_HEADING, changedFiles } from "../../../src/engine/context/changed_files.ts";
import { ContextMeter } from "../../../src/engine/context/size.ts";
import type { ChatMessage, ChatProvider } from "../../../src/provider/types.ts";
import { emptyUsage } from "../../../src/contracts/events.ts";

const TASK = "Rename the config loader.\nKeep `loadConfig` exported, and ```fences``` intact.";

const call = (id: string, name: string, input: unknown) => ({
  id,
  name,
  arguments: JSON.stringify(input),
});

function session(): ChatMessage[] {
  const history: ChatMessage[] = [
    { role: "system", content: "system prompt" },
    { role: "user", content: TASK },
  ];
  const calls = [
    call("c1", "read", { file_path: "src/config.ts" }),
    call("c2", "write", { file_path: "src/loader.ts", content: "x" }),
    call("c3", "edit", { file_path: "src/config.ts", edits: [] }),
    call("c4", "apply_patch", {
      patch: "*** Begin Patch\n*** Add File: docs/loader.md\n+hi\n*** Update File: README.md\n" +
        "@@\n-a\n+b\n*** End Patch",
    }),
    call("c5", "read", { file_path: "src/other.ts" }),
    call("c6", "read", { file_path: "src/more.ts" }),
  ];
  for (const one of calls) {
    history.push({ role: "assistant", content: "Working on it. ".repeat(40), tool_calls: [one] });
    history.push({ role: "tool", tool_call_id: one.id, content: "line\n".repeat(300) });
  }
  return history;
}

const answering = (text: string): ChatProvider => ({
  baseURL: "http://fake",
  stream: () => Promise.resolve({ text, toolCalls: [], finishReason: "stop", usage: emptyUsage() }),
});

const deps = (text: string) => ({
  provider: answering(text),
  model: "m",
  meter: new ContextMeter(),
  requestBudget: 100_000,
  maxOutputTokens: 1_000,
});

Deno.test("the files changed are known from write, edit and apply_patch calls, not from reads", () => {
  assertEquals(changedFiles(session()), [
    "src/loader.ts",
    "src/config.ts",
    "docs/loader.md",
    "README.md",
  ]);
});

Deno.test("a handoff that leaves out changed files gets them added; a later handoff still knows them", async () => {
  const history = session();
  const outcome = await summarise(history, deps("## Task\n> something\n## Files\n- README.md"));
  assert(outcome.ok, JSON.stringify(outcome));
  assert(outcome.summary.includes(CHANGED_FILES_HEADING));
  for (const file of ["src/loader.ts", "src/config.ts", "docs/loader.md"]) {
    assert(outcome.summary.includes(`- ${file}`), file);
  }
  // README.md was named by the model: not listed twice.
  assertEquals(outcome.summary.split("README.md").length, 2);
  // The handoff now stands for those calls; its own section carries the files on.
  assertEquals(changedFiles(outcome.history), ["src/loader.ts", "src/config.ts", "docs/loader.md"]);
});

Deno.test("a multi-line task the model dropped is added back byte for byte, in a fence it cannot close", async () => {
  const outcome = await summarise(session(), deps("## Task\nrename something"));
  assert(outcome.ok, JSON.stringify(outcome));
  assert(outcome.summary.includes(TASK), outcome.summary);
  assert(outcome.summary.includes("````text\n"), "a fence longer than the task's own backticks");
});

Deno.test("a task the model quoted as a Markdown quote block counts as kept verbatim", () => {
  const quoted = `## Task\n> ${TASK.replaceAll("\n", "\n> ")}`;
  assertEquals(missingUserWords(quoted, [TASK]), []);
  assertEquals(missingUserWords("## Task\n> Rename the config loader.", [TASK]), [TASK]);
});
