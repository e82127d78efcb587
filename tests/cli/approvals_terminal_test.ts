/**
 * `skiff run`'s approval question at a real terminal (tmux) against the mock:
 * "Deny and tell the model why" takes a typed reason, and the model reads it
 * as the call's result; nothing runs.
 */
import { assert, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inTerminal,
  press,
  shows,
  type,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("skiff run's approval question in a real terminal");

/** At the approval question: picks "Deny and tell the model why" and types `reason` (not sent). */
async function typeReason(session: string, reason: string): Promise<void> {
  await shows(session, "Deny and tell the model why");
  await press(session, "Up");
  await shows(session, "type the reason next");
  await press(session, "Enter");
  await shows(session, "Why not?");
  await type(session, reason);
}

Deno.test({
  name:
    "run approval: 'Deny and tell the model why' sends the typed reason to the model as the tool result",
  ignore: !hasTmux,
  async fn() {
    const marker = `sleep 4${Math.floor(Math.random() * 9)}.${Date.now() % 1000}`;
    await inTerminal(
      [
        { toolCalls: [{ name: "bash", arguments: { command: marker } }] },
        { text: "Understood, no nap." },
      ],
      "run 'take a nap'",
      async (session, _sandbox, mock) => {
        await typeReason(session, "naps are for cats");
        await press(session, "Enter");
        const screen = await shows(session, "SKIFF_EXIT=");
        assertStringIncludes(screen, "Understood, no nap.");
        assertStringIncludes(screen, "denied: The user denied this: naps are for cats");
        // A refusal like a plain "Deny": the run ends with the refused-call code.
        assertStringIncludes(screen, "SKIFF_EXIT=3");
        const result = JSON.stringify(mock.requests[1]?.messages);
        assertStringIncludes(result, "The user denied this: naps are for cats");
        assert(mock.requests.length === 2, `${mock.requests.length} requests`);
      },
      { prefix: "skiff-run-ask" },
    );
  },
});

Deno.test({
  name:
    "run approval: Esc while typing the reason goes back to the list, and a plain Deny then refuses",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 23" } }] },
        { text: "No nap then." },
      ],
      "run 'take a nap'",
      async (session, _sandbox, mock) => {
        await typeReason(session, "never mind");
        await press(session, "Escape");
        // The list again, asked a second time.
        await waitFor(
          session,
          (screen) => screen.split("Allow this?").length - 1 === 2,
          "the question asked again",
        );
        await press(session, "Up");
        await press(session, "Up");
        await press(session, "Enter");
        const screen = await shows(session, "SKIFF_EXIT=");
        assertStringIncludes(screen, "No nap then.");
        const result = JSON.stringify(mock.requests[1]?.messages);
        assert(!result.includes("never mind"), "the abandoned reason reached the model");
        assert(!result.includes("The user denied this:"), result);
        assertStringIncludes(result, "The user refused this call");
        assertStringIncludes(screen, "SKIFF_EXIT=3");
      },
      { prefix: "skiff-run-ask" },
    );
  },
});
