/**
 * `!command` in the chat at a real terminal (tmux) against the mock: it runs
 * through the bash tool's own path (the same rules, approvals and sandbox as
 * the agent's commands), its output is shown and goes to the model with the
 * next message.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inChat,
  press,
  shows,
  typeLine,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import { hasBwrap } from "../escape/_harness.ts";

warnWithoutTmux("the chat's !command tests in a real terminal");

/** Every message of the `index`th request the mock received, as JSON text. */
const sent = (requests: Record<string, unknown>[], index: number) =>
  JSON.stringify(requests[index]?.messages);

Deno.test({
  name:
    "chat !command: asks as the agent's bash would, shows the output, and the next message carries it to the model",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Noted the output." }], async (session, _sandbox, mock) => {
      // The output differs from the command line: only running it gives 42.
      await typeLine(session, "!echo BANG-$((6*7))");
      await shows(session, "wants permission");
      await press(session, "y");
      // Done, the status line is idle again: no spinner left "thinking" with no turn running.
      const screen = await waitFor(
        session,
        (text) => text.includes("BANG-42") && /^mock-model · build/m.test(text),
        "the output and an idle status line",
      );
      assertEquals(screen.split("BANG-42").length - 1, 1, `the output shown once:\n${screen}`);
      assertEquals(mock.requests.length, 0, "a !command alone asks the model nothing");
      assert(!screen.includes("› !echo"), `sent as a prompt:\n${screen}`);
      await typeLine(session, "what did it print?");
      await shows(session, "Noted the output.");
      const messages = sent(mock.requests, 0);
      assertStringIncludes(messages, "I ran `echo BANG-$((6*7))` myself");
      assertStringIncludes(messages, "BANG-42");
      assertStringIncludes(messages, "what did it print?");
    });
  },
});

Deno.test({
  name:
    "chat !command: a deny rule refuses it without a question, nothing runs, and the refusal is what the model gets",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Understood." }], async (session, sandbox, mock) => {
      await typeLine(session, "!touch made-by-bang.txt");
      const screen = await waitFor(
        session,
        (text) => text.includes("bash(touch *) → deny") && /^mock-model · build/m.test(text),
        "the refusal and an idle status line",
      );
      assert(!screen.includes("wants permission"), `asked although a rule denies:\n${screen}`);
      const made = await Deno.stat(path.join(sandbox.workspace, "made-by-bang.txt"))
        .then(() => true, () => false);
      assertEquals(made, false, "the denied command ran");
      await typeLine(session, "ok");
      await shows(session, "Understood.");
      assertStringIncludes(
        sent(mock.requests, 0),
        "I tried to run `touch made-by-bang.txt` myself",
      );
      assertStringIncludes(sent(mock.requests, 0), "bash(touch *) → deny");
    }, {
      prepare: (sandbox) =>
        Deno.writeTextFile(
          path.join(sandbox.configDir, "config.json"),
          JSON.stringify({ permission: { bash: { "touch *": "deny" } } }),
        ),
    });
  },
});

Deno.test({
  name:
    "chat !command: runs in the agent's sandbox, so a write outside the workspace fails and nothing is made there",
  ignore: !hasTmux || !hasBwrap,
  async fn() {
    // /var/tmp, not /tmp: the sandbox gives a command its own /tmp, where a write would prove nothing.
    const outside = `/var/tmp/skiff-bang-${crypto.randomUUID().slice(0, 8)}`;
    try {
      await inChat([{ text: "Fine." }], async (session, _sandbox, mock) => {
        await typeLine(session, `!touch ${outside}; echo TOUCH-DONE`);
        await shows(session, "wants permission");
        await press(session, "y");
        const screen = await waitFor(
          session,
          (text) => text.includes("TOUCH-DONE") && /^mock-model · build/m.test(text),
          "the command's output and an idle status line",
        );
        // It ran (the policy let it), and the sandbox kept it from writing there.
        assertStringIncludes(screen, "Read-only file system");
        const made = await Deno.stat(outside).then(() => true, () => false);
        assertEquals(made, false, `${outside} was written from a !command`);
        await typeLine(session, "and?");
        await shows(session, "Fine.");
        assertStringIncludes(sent(mock.requests, 0), "Read-only file system");
      });
    } finally {
      await Deno.remove(outside).catch(() => {});
    }
  },
});
