/**
 * The terminal side of a session: what runs in skiff's first isolate,
 * around the engine's Worker. `setup.ts` `prepare()` reads the config once,
 * takes the trust decision and resolves sandbox settings, MCP servers and
 * agents into one `EngineSpec`; `start.ts` `startEngine()` starts the engine
 * in a Worker through the one Worker client (`worker_client.ts`) or takes a
 * kept one (`engine_pool.ts`, for the chat and batches); `session_hold.ts`
 * holds a session against a second writer; `mcp_spec.ts` resolves the MCP
 * servers both the Worker's permissions and the client need.
 */
export { type CommonOptions, prepare, type Prepared } from "./setup.ts";
export { startEngine } from "./start.ts";
export { EngineWorkers } from "./engine_pool.ts";
