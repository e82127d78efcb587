/**
 * The engine: everything that runs inside the engine's Worker. `worker_main.ts`
 * is the Worker's entry; `handle.ts` `startInProcess()` opens the store and
 * the provider and gives back an `EngineHandle`; `engine.ts` owns a session
 * (`session_parts.ts` builds its agent, tools, launcher and permission gate)
 * and starts a `PromptRun` (`prompt_run.ts`) on the loop (`loop/`), with the
 * history kept under the model's window (`context/`) and the `--until` /
 * `--done` checks run in cycles (`verify/`). `recorder.ts` stores each event;
 * `run_outcome.ts` turns how a run ended into `session.completed`.
 *
 * The terminal side speaks to it only through `protocol.ts` messages and the
 * plain-data `EngineSpec` (`types.ts`); src/host/ starts and keeps the Worker.
 */
export type {
  EngineIO,
  EngineSettings,
  EngineSpec,
  OutcomeKind,
  RunRequest,
  SessionSandbox,
} from "./types.ts";
export type { EngineHandle, SessionSelector } from "./handle.ts";
