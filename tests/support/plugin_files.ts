/**
 * Files in the shape Claude Code's plugins ship (our own words): an agent
 * whose one-line description carries examples with colons and quotes, which
 * is not strict YAML.
 */

/** The shape of a plugin agent: examples inline in the description, quotes and colons in them. */
export const PLUGIN_AGENT = [
  "---",
  "name: tidy-checker",
  'description: Use this agent when a change is finished and needs a tidy pass. Examples: <example>Context: The user finished a parser. user: "I wrote the tokenizer, check it" assistant: "I\'ll use the tidy-checker agent: it looks at naming and dead code." <commentary>Finished code: tidy pass.</commentary></example>',
  "tools: Glob, Grep, Read",
  "model: sonnet",
  "color: yellow",
  "---",
  "",
  "You look for leftover debug output and unclear names.",
  "",
].join("\n");
