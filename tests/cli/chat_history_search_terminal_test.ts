/**
 * Ctrl-R at a real terminal (tmux) against the scripted mock: what is
 * searched for and the match found are drawn as they are typed, Ctrl-R again
 * steps to an older match, Enter sends the match, Esc gives back the input.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inChat,
  press,
  shows,
  type,
  typeLine,
  visible,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("Ctrl-R history search in a real terminal");

/** The visible input row (the one starting with "> "). */
async function inputRow(session: string): Promise<string> {
  return (await visible(session)).findLast((row) => row.startsWith(">")) ?? "";
}

Deno.test({
  name:
    "chat Ctrl-R: the query and its match are drawn as typed; Ctrl-R goes older; Enter sends the match",
  ignore: !hasTmux,
  async fn() {
    await inChat(
      [{ text: "One." }, { text: "Two." }, { text: "Three." }],
      async (session, _sandbox, mock) => {
        await typeLine(session, "alpha walrus");
        await shows(session, "One.");
        await typeLine(session, "beta walrus");
        await shows(session, "Two.");
        await press(session, "C-r");
        await shows(session, "search history:");
        await type(session, "walr");
        await waitFor(
          session,
          (screen) => screen.includes("search history: walr ·") && screen.includes("> beta walrus"),
          "the newest match drawn in the input",
        );
        await press(session, "C-r");
        await waitFor(
          session,
          (screen) => screen.includes("> alpha walrus"),
          "the older match drawn after a second Ctrl-R",
        );
        await type(session, "zzz");
        const none = await shows(session, "(no match)");
        assertStringIncludes(none, "search history: walrzzz (no match)");
        await press(session, "BSpace", "BSpace", "BSpace");
        await waitFor(
          session,
          (screen) => screen.includes("search history: walr ·"),
          "the query shortened",
        );
        await press(session, "Enter");
        await shows(session, "Three.");
        const messages = mock.requests.at(-1)?.messages as { role: string; content: string }[];
        assertEquals(messages.at(-1)?.content, "beta walrus", "the match is what was sent");
        // Esc leaves the search with the input as it was.
        await type(session, "draft");
        await press(session, "C-r");
        await type(session, "alpha");
        await waitFor(session, (screen) => screen.includes("> alpha walrus"), "match shown");
        await press(session, "Escape");
        await waitFor(
          session,
          (screen) => !screen.includes("search history:") && screen.includes("> draft"),
          "the input back after Esc",
        );
        assertStringIncludes(await inputRow(session), "> draft");
      },
      { prefix: "skiff-ctrl-r" },
    );
  },
});
