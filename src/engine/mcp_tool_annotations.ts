/**
 * What each served tool may do, told to MCP clients as `title` and
 * `annotations` (the hints a client uses to decide whether to ask before a
 * call: Codex under `approval_policy = "never"` runs only what says it is
 * read-only). They follow what the tool declares to skiff's own policy: the
 * `read` key reads, `edit`/`write` keys change files, `bash` runs commands,
 * `webfetch` reaches the network. A hint is advice to the client; skiff's
 * rules still judge every call. A tool missing here gets the most careful
 * hints (may destroy, reaches out), never the kindest.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

type Hints = { title: string; annotations: ToolAnnotations };

/** Reads the workspace and changes nothing. */
const reads = (title: string): Hints => ({
  title,
  annotations: {
    title,
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
});

/** Changes files or records (undoable files: `skiff undo`), nothing outside. */
const changes = (title: string, destructive: boolean, idempotent: boolean): Hints => ({
  title,
  annotations: {
    title,
    readOnlyHint: false,
    destructiveHint: destructive,
    idempotentHint: idempotent,
    openWorldHint: false,
  },
});

/** Runs commands: anything the sandbox and the rules let through, the network included. */
const runs = (title: string): Hints => ({
  title,
  annotations: {
    title,
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
});

const HINTS: Readonly<Record<string, Hints>> = {
  read: reads("Read a file"),
  glob: reads("Find files by name"),
  grep: reads("Search file contents"),
  list: reads("List a folder"),
  symbol: reads("Find a symbol's definition"),
  todoread: reads("Read the todo list"),
  harness_status: reads("Where the work stands"),
  write: changes("Write a file", true, true),
  edit: changes("Edit a file", true, false),
  apply_patch: changes("Apply a patch", true, false),
  file_copy: changes("Copy a file", true, true),
  file_delete: changes("Delete a file", true, true),
  todowrite: changes("Set the todo list", false, true),
  remember: changes("Remember a fact", false, false),
  harness_record: changes("Record work state", false, false),
  harness_handoff: changes("Leave a handoff", false, false),
  harness_verify: changes("Record a verification", false, false),
  bash: runs("Run a command"),
  process: runs("Manage background processes"),
  webfetch: {
    title: "Fetch a URL",
    annotations: {
      title: "Fetch a URL",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
  },
};

/** The title and annotations of the served tool `name`; the most careful for one not known here. */
export function mcpToolHints(name: string): Hints {
  return HINTS[name] ?? runs(name);
}

/** Whether `name` has hints of its own (a test keeps every served tool covered). */
export function hasMcpToolHints(name: string): boolean {
  return name in HINTS;
}
