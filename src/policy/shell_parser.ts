/**
 * The bash parser behind the rule table: tree-sitter-bash running on
 * web-tree-sitter (WebAssembly). Loading it costs tens of milliseconds, so
 * nothing loads it until a bash call is judged: `ensureShellParser()` starts
 * the load once and every later call shares it. A load that fails is
 * remembered, and every command is then asked about (see `parserFailure`).
 */
import type { Parser, Tree } from "web-tree-sitter";

let parser: Parser | undefined;
let loading: Promise<void> | undefined;
let failure: string | undefined;

async function load(): Promise<void> {
  try {
    const [{ Language, Parser }, wasm] = await Promise.all([
      import("web-tree-sitter"),
      import("./_shell_wasm.ts"),
    ]);
    await Parser.init({ wasmBinary: wasm.runtime });
    const ready = new Parser();
    ready.setLanguage(await Language.load(wasm.grammar));
    parser = ready;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
}

/** Load the parser if it is not loaded yet. Never rejects: a failure is kept for `parserFailure`. */
export function ensureShellParser(): Promise<void> {
  loading ??= load();
  return loading;
}

/** Why the parser cannot be used right now, or null when it is ready. */
export function parserFailure(): string | null {
  if (parser) return null;
  if (failure) return `the shell parser failed to load (${failure})`;
  return "the shell parser is not loaded yet";
}

/**
 * The syntax tree of `source`, or null when the parser is not ready. The
 * caller must `delete()` the tree when done: it lives in WebAssembly memory.
 */
export function parseShell(source: string): Tree | null {
  return parser?.parse(source) ?? null;
}
