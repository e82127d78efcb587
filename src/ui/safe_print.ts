/**
 * Lines for a person at a terminal, each through the one neutraliser
 * (`neutraliseControls`, safe_text.ts) on its way out: for commands that print
 * what others wrote — MCP server names, their tools' descriptions and the
 * stderr quoted in a warning, agent files' descriptions, error messages
 * naming a project's config.
 */
import { neutraliseControls } from "./safe_text.ts";

/** One line on stdout, its control characters shown rather than obeyed. */
export function printLine(text: string): void {
  console.log(neutraliseControls(text));
}

/** One line on stderr, its control characters shown rather than obeyed. */
export function printErrorLine(text: string): void {
  console.error(neutraliseControls(text));
}
