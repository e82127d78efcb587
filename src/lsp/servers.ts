/**
 * Which language server checks which file: the known servers (TypeScript and
 * JavaScript, Python, Go, Rust) and those the config names, and where each
 * program is found — the workspace's own `node_modules/.bin` first, then the
 * user's PATH inside the sandbox. skiff never installs one.
 */
import * as path from "../lib/path.ts";

/** One server as configured: how to start it and what it checks. */
export interface ServerDefinition {
  /** The config's name for it (`typescript`, `python`, or one of the user's). */
  name: string;
  /** Program and arguments. */
  command: string[];
  extensions: string[];
  /** The LSP language id per extension; missing ones use `languageId`. */
  languageIds?: Record<string, string>;
  languageId?: string;
  initializationOptions?: unknown;
  /**
   * How long the server waits after a change before it checks, for a server
   * whose diagnostics carry no version: what it publishes sooner is about an
   * earlier text. @default 0
   */
  checkDelayMs?: number;
  /**
   * How the server answers when asked for a file's diagnostics, where its
   * `initialize` answer does not say: `lsp`, LSP's request (a server that
   * offers it only to clients that register it on the fly); `tsserver`,
   * typescript-language-server's command for tsserver's own requests.
   */
  pull?: "lsp" | "tsserver";
  /**
   * Keeps the server's caches (`XDG_CACHE_HOME`) in a new folder of the
   * temporary one: the home folder is read-only in the sandbox and some
   * servers do nothing without a cache.
   */
  cacheInTemp?: boolean;
}

/** The config's `lsp.servers` entry, as src/config/schema.ts checks it. */
export interface ServerConfig {
  command?: string[];
  extensions?: string[];
  languageId?: string;
  initializationOptions?: unknown;
  enabled?: boolean;
}

const KNOWN: readonly ServerDefinition[] = [
  {
    name: "typescript",
    command: ["typescript-language-server", "--stdio"],
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
    languageIds: {
      ".ts": "typescript",
      ".mts": "typescript",
      ".cts": "typescript",
      ".tsx": "typescriptreact",
      ".jsx": "javascriptreact",
    },
    languageId: "javascript",
    // What it publishes unasked comes only after its own delay: asked, tsserver answers at once.
    pull: "tsserver",
    // Types are never fetched (no network in the sandbox), and one tsserver instead of two
    // leaves the cores to the project load.
    initializationOptions: {
      disableAutomaticTypingAcquisition: true,
      tsserver: { useSyntaxServer: "never" },
    },
    // typescript-language-server checks 300 ms (or more, for long files) after a change.
    checkDelayMs: 250,
  },
  {
    name: "python",
    command: ["pyright-langserver", "--stdio"],
    extensions: [".py", ".pyi"],
    languageId: "python",
    // It answers LSP's request while it also publishes, as this client registers nothing on the fly.
    pull: "lsp",
  },
  { name: "go", command: ["gopls"], extensions: [".go"], languageId: "go", cacheInTemp: true },
  { name: "rust", command: ["rust-analyzer"], extensions: [".rs"], languageId: "rust" },
];

/**
 * The known servers with the config's changes and additions; switched-off
 * ones left out. An entry for a known name changes what it gives; a new name
 * without `command` and `extensions` names nothing to start and is left out.
 */
export function serverTable(configured: Record<string, ServerConfig> = {}): ServerDefinition[] {
  const table = new Map(KNOWN.map((server) => [server.name, server]));
  for (const [name, entry] of Object.entries(configured)) {
    const known = table.get(name);
    if (entry.enabled === false) {
      table.delete(name);
      continue;
    }
    const command = entry.command ?? known?.command;
    const extensions = entry.extensions ?? known?.extensions;
    if (!command || !extensions) continue;
    table.set(name, {
      name,
      command,
      extensions,
      languageIds: entry.languageId ? undefined : known?.languageIds,
      languageId: entry.languageId ?? known?.languageId,
      initializationOptions: entry.initializationOptions ?? known?.initializationOptions,
      // What is known of how the known program behaves does not carry to another program.
      checkDelayMs: entry.command ? undefined : known?.checkDelayMs,
      pull: entry.command ? undefined : known?.pull,
      cacheInTemp: entry.command ? undefined : known?.cacheInTemp,
    });
  }
  return [...table.values()];
}

/** `file`'s extension with its dot, lower case, or "" for none. */
function extensionOf(file: string): string {
  const base = path.basename(file);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** The server for `file`, by its extension (the last configured wins), or undefined. */
export function serverFor(
  table: readonly ServerDefinition[],
  file: string,
): ServerDefinition | undefined {
  const extension = extensionOf(file);
  if (!extension) return undefined;
  return table.findLast((server) => server.extensions.includes(extension));
}

/** The LSP language id of `file` under `server`. */
export function languageIdOf(server: ServerDefinition, file: string): string {
  const extension = extensionOf(file);
  return server.languageIds?.[extension] ?? server.languageId ?? extension.slice(1);
}

/**
 * The program to start: a bare name found in the workspace's
 * `node_modules/.bin` becomes that path (the project's own toolchain);
 * otherwise it stays as written, for the sandbox's PATH. Needs read access
 * to the workspace.
 */
export function resolveProgram(program: string, workspace: string): string {
  if (program.includes("/")) return path.resolve(workspace, program);
  const local = path.join(workspace, "node_modules", ".bin", program);
  try {
    if (Deno.statSync(local).isFile) return local;
  } catch {
    // Not in the workspace: the sandbox's PATH decides.
  }
  return program;
}
