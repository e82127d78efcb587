/**
 * The WebAssembly the shell parser runs on: web-tree-sitter's runtime and
 * the bash grammar, imported as bytes so they are part of the module graph.
 * That way a Worker with no read permission loads them, and `deno compile`
 * embeds them (deno.json turns on the "raw-imports" feature this needs).
 * Only shell_parser.ts imports this file, lazily.
 */
import runtime from "web-tree-sitter/web-tree-sitter.wasm" with { type: "bytes" };
import grammar from "tree-sitter-bash/tree-sitter-bash.wasm" with { type: "bytes" };

export { grammar, runtime };
