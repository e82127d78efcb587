/**
 * Modules loaded by a computed specifier (`importLazy`, src/boot/lazy_import.ts),
 * so that Deno does not load them when it builds the module graph (a
 * statically written `import()` is loaded then, whether it runs or not): the
 * CLI (src/cli/start.ts), the parser and each command's module
 * (src/cli/main.ts, src/cli/program.ts, src/cli/command_loader.ts), the
 * engine and the model client for SKIFF_ENGINE=inline (src/engine/handle.ts).
 * Graph analysis cannot see them, so scripts/compile.ts includes this list in
 * the binary and scripts/build.ts writes each import out in the bundle;
 * tests/cli/startup_graph_test.ts checks it against those files.
 */
export const LAZY_LOADED_MODULES = [
  "src/cli/main.ts",
  "src/cli/acp/acp.ts",
  "src/cli/agents.ts",
  "src/cli/batch/batch.ts",
  "src/cli/chat/chat.ts",
  "src/cli/sessions/compact.ts",
  "src/cli/doctor/doctor.ts",
  "src/cli/mcp/mcp.ts",
  "src/cli/mcp/mcp_login.ts",
  "src/cli/mcp/mcp_serve.ts",
  "src/cli/program.ts",
  "src/cli/memory.ts",
  "src/cli/run/run.ts",
  "src/cli/sessions/sessions.ts",
  "src/cli/sessions/stats.ts",
  "src/cli/tool.ts",
  "src/cli/undo.ts",
  "src/cli/sessions/usage.ts",
  "src/engine/engine.ts",
  "src/provider/create_provider.ts",
  "src/provider/cost.ts",
  "src/provider/rate_limiter.ts",
  "src/provider/dialects/model_dialect.ts",
] as const;

/** One of them, by its path from the repository root. */
export type LazyModule = typeof LAZY_LOADED_MODULES[number];
