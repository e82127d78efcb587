/**
 * What a tool call is to every layer: what it would touch (`Access`, judged
 * by the policy), what it returns, and the error the model reads. Shared by
 * tools, policy, MCP and the session loop; imports nothing.
 */

/** What one call would touch, for the policy table to judge. */
export interface Access {
  /** Permission key: "read", "edit", "bash", "webfetch", an MCP tool name… */
  key: string;
  /** What rules match against: workspace-relative paths, the command, the URL. */
  patterns: string[];
  /** Absolute paths the call reads. */
  reads?: string[];
  /** Absolute paths the call writes. */
  writes?: string[];
  /** Network hosts the call reaches. */
  hosts?: string[];
  /** Commands the call runs (bash: the whole command string). */
  commands?: string[];
  /** Patterns an "always allow" answer would store (`git log *`). */
  always?: string[];
  /** Shown to a person asked to approve: a command, a diff, a URL. */
  preview?: string;
  /**
   * Set when a URL call reaches a local address (loopback, private,
   * link-local, the machine's own): why, in words. Only an allow rule naming
   * the URL's host and port, or a person's answer, allows it; `--yes` does not.
   */
  local?: string;
  /**
   * Set by an MCP tool: `key` is then its `{server}_{tool}` name, judged in
   * the MCP tools' own namespace (src/permission/mcp_rule_keys.ts): no built-in
   * key's default applies, and an allow rule is held to the server's name.
   */
  mcp?: McpToolKey;
}

/** An MCP tool's name in its two parts, as `mcpToolName` joined them (characters sanitised). */
export interface McpToolKey {
  server: string;
  tool: string;
  /**
   * The session's other servers whose names are this one's followed by `_`
   * (`github_helper` beside `github`): a rule naming one of them is theirs.
   */
  longerServers?: string[];
}

/** A finished call. `title` is the compact one-line summary for the terminal. */
export interface ToolResult {
  output: string;
  title?: string;
  metadata?: Record<string, unknown>;
}

export type ToolErrorCode =
  | "file_not_read"
  | "file_changed"
  | "no_match"
  | "ambiguous_match"
  | "no_op_edit"
  | "not_found"
  | "bad_input"
  | "invalid_pattern"
  | "timeout"
  | "denied"
  | "too_large"
  | "binary_file"
  | "not_capable"
  | "failed";

/**
 * A failure the model can act on. Only `denied` is final; every other code is
 * written so the model reads it and corrects itself.
 */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly hint?: string,
    readonly metadata?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ToolError";
  }

  toJSON(): { code: string; message: string; hint?: string } {
    return { code: this.code, message: this.message, ...(this.hint ? { hint: this.hint } : {}) };
  }
}
