/**
 * `skiff run`'s approval question at a real terminal (tmux) against the mock:
 * the "always" choices name the rule they would store (`echo again` stores
 * `bash(echo again *)`), on the screen before anything is chosen.
 */
import { assertStringIncludes } from "../support/assert.ts";
import { hasTmux, inTerminal, press, shows, warnWithoutTmux } from "../support/chat_tmux.ts";

warnWithoutTmux("skiff run's approval choices in a real terminal");

Deno.test({
  name: "run approval: the always choices show the rule they store before one is chosen",
  ignore: !hasTmux,
  async fn() {
    await inTerminal(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "echo again" } }] },
        { text: "Said it." },
      ],
      "run 'say it again'",
      async (session) => {
        const screen = await shows(session, "Deny and tell the model why");
        assertStringIncludes(screen, "Always allow bash(echo again *) in this session");
        assertStringIncludes(screen, "Always allow bash(echo again *) in this project");
        await press(session, "Enter");
        assertStringIncludes(await shows(session, "SKIFF_EXIT="), "SKIFF_EXIT=0");
      },
      { prefix: "skiff-run-rule" },
    );
  },
});
