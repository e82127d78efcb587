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

/** A line that takes the parser through the shell's common forms once. */
const WARM_UP =
  `A=1 cd "$HOME" && ls -la 'x y' | grep -v "$(echo \${A:-b})" > /dev/null 2>&1 || { echo 'n'; }; for f in *.ts; do [ -f "$f" ]; done # c
cat <<EOF
x
EOF`;

async function load(): Promise<void> {
  try {
    const [{ Language, Parser }, wasm] = await Promise.all([
      import("web-tree-sitter"),
      import("./_shell_wasm.ts"),
    ]);
    await Parser.init({ wasmBinary: wasm.runtime });
    const ready = new Parser();
    ready.setLanguage(await Language.load(wasm.grammar));
    // V8 compiles WebAssembly lazily, function by function: the first parse compiles the
    // grammar's lexer, the next is cheap (docs/performance.md). Done here, it runs with the load,
    // while a call's arguments still stream, instead of when the policy judges the command.
    ready.parse(WARM_UP)?.delete();
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
