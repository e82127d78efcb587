/**
 * docs/interactive.md's picture of the chat shows tool lines as a real chat
 * draws them: the same calls, made by a scripted model in a real terminal
 * (tmux), give the documented lines, durations aside.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { hasTmux, inChat, shows, typeLine, warnWithoutTmux } from "../support/chat_tmux.ts";
import type { MockTurn } from "../support/mock_server.ts";

warnWithoutTmux("docs/interactive.md's tool lines");

const DOC = new URL("../../docs/interactive.md", import.meta.url);
const TOOL_LINE = /^(✓|✗) |^ {2}/;
/** A line's duration (and a model label after it) as one mark: they differ run by run. */
const normalise = (line: string) =>
  line.replace(/ \d+(\.\d+)?(ms|s)|\d+m\d+s/, " <time>").replace(/\s+$/, "");

/** The tool lines of the picture under "## What is drawn". */
async function documented(): Promise<string[]> {
  const text = await Deno.readTextFile(DOC);
  const block = text.slice(text.indexOf("## What is drawn")).match(/```\n([\s\S]*?)\n```/);
  assert(block, "docs/interactive.md has no picture under 'What is drawn'");
  const lines = block[1].split("\n");
  const first = lines.findIndex((line) => /^(✓|✗) /.test(line));
  const after = lines.findIndex((line, index) => index > first && !TOOL_LINE.test(line));
  return lines.slice(first, after).map(normalise);
}

const PARSE = [
  ...Array.from({ length: 38 }, (_, index) => `export const header${index} = ${index};`),
  "export function readHeader(start: number, length: number): number {",
  "  const end = start + length + 1;",
  "  return end;",
  "}",
].join("\n") + "\n";

const call = (name: string, args: Record<string, unknown>): MockTurn => ({
  toolCalls: [{ name, arguments: args }],
});

Deno.test({
  name: "docs/interactive.md's tool lines are a real chat's, durations aside",
  ignore: !hasTmux,
  async fn() {
    const script: MockTurn[] = [
      call("read", { file_path: "src/parse.ts" }),
      call("edit", {
        file_path: "src/parse.ts",
        old_string: "  const end = start + length + 1;",
        new_string: "  const end = start + length;",
      }),
      call("bash", { command: "make test" }),
      { text: "The test still fails." },
    ];
    await inChat(script, async (session) => {
      await typeLine(session, "fix the off-by-one");
      const screen = await shows(session, "The test still fails.");
      const drawn = screen.split("\n").filter((line) => TOOL_LINE.test(line));
      const first = drawn.findIndex((line) => line.startsWith("✓ read"));
      assert(first >= 0, screen);
      const expected = await documented();
      assertEquals(drawn.slice(first, first + expected.length).map(normalise), expected, screen);
    }, {
      prepare: async (sandbox) => {
        await Deno.mkdir(path.join(sandbox.workspace, "src"));
        await Deno.writeTextFile(path.join(sandbox.workspace, "src", "parse.ts"), PARSE);
        await Deno.writeTextFile(
          path.join(sandbox.workspace, "Makefile"),
          "test:\n\t@echo 'error: Test failed'; seq 1 40 | sed 's/^/  ok /'; exit 1\n",
        );
        await Deno.writeTextFile(
          path.join(sandbox.configDir, "config.json"),
          JSON.stringify({ permission: { bash: { "make test": "allow" }, edit: "allow" } }),
        );
      },
    });
  },
});
