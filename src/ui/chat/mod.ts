/**
 * What the interactive session (`skiff` / `skiff chat`) draws. The
 * conversation is written inline into the terminal's own scrollback; only a
 * bottom region (the todo checklist while one is open, the input area and the
 * status line) is erased and redrawn. The input side (keys, history,
 * completion, slash commands) lives in `ui/chat/input/` and `cli/chat/chat.ts` and
 * talks to the screen only through `ChatRenderer` (types.ts).
 *
 * Everything that came from the model or a tool passes `neutraliseControls`
 * before skiff adds its own colours, so a model cannot move the cursor,
 * retitle the window or hide a command behind a carriage return.
 */
export type { ChatOutput, ChatRenderer, ChatRendererOptions, StatusInfo } from "./types.ts";
export { createChatRenderer } from "./renderer.ts";
export { chatColour } from "./style.ts";
