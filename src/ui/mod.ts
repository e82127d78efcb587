/**
 * What a person sees. Renderers turn the event stream into output: plain
 * text (`text.ts`), JSON lines for `--json` (`jsonl.ts`), and the
 * interactive chat (`chat/`: inline scrollback with a redrawn bottom region,
 * its input side in `chat/input/`; docs/interactive.md). The approval
 * question at a terminal is `interactive_broker.ts`. Text from a model or a
 * tool reaches a terminal only through `safe_text.ts` / `safe_print.ts`,
 * and a tool line names what ran (`tool_title.ts`).
 */
export { textRenderer } from "./text.ts";
export { jsonlRenderer } from "./jsonl.ts";
export { createChatRenderer } from "./chat/mod.ts";
