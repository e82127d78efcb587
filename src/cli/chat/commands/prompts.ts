/**
 * /compact and /init: the first compacts this session now through the
 * engine (the code `skiff compact` runs); the second asks the model to look
 * at the project and write AGENTS.md, through the normal tools and their
 * approvals: skiff itself writes nothing.
 */
import type { SlashCommand } from "../../../ui/chat/input/commands.ts";
import { neutraliseControls } from "../../../ui/safe_text.ts";
import type { SessionControls } from "./controls.ts";

type Command = SlashCommand<SessionControls>;

export const compactSlashCommand: Command = {
  name: "compact",
  description: "summarise the older part of this conversation now",
  argumentHint: "[focus]",
  async run(args, controls) {
    if (!controls.sessionId()) return controls.print("Nothing to compact: no prompt has run yet.");
    const engine = await controls.engine();
    if (!engine.compact) return controls.print("This engine cannot compact.");
    const result = await engine.compact(args || undefined);
    controls.print(neutraliseControls(result.text));
  },
};

/** What /init sends: look first, then write one file, short and specific. */
export const INIT_PROMPT =
  `Look at this project and write an AGENTS.md at its root for coding agents.

First explore: read the README and build or package files, list the layout, find how to build,
run the tests, lint and format, and note conventions the code follows. Then write AGENTS.md with:
- what the project is, in two or three sentences;
- the exact commands to build, test (all, and a single test), lint and format;
- the layout: the main folders and what lives in each;
- conventions a newcomer would get wrong (style, naming, error handling, tests).
Keep it under 150 lines, specific to this project, no generic advice. If AGENTS.md already
exists, read it and improve it instead of starting over, keeping what is still true.`;

export const initCommand: Command = {
  name: "init",
  description: "have the model look at the project and write AGENTS.md",
  async run(_args, controls) {
    await controls.send(INIT_PROMPT);
  },
};
