/**
 * Where the engine runs: in a permission-restricted Worker (the default, the
 * second layer of containment), or in this thread when SKIFF_ENGINE=inline
 * (debugging only; the policy and the OS sandbox still apply).
 */
import type { EngineIO, EngineSpec } from "../engine/types.ts";
import type { EngineHandle } from "../engine/handle.ts";
import { startInWorker } from "./worker_client.ts";
import { ensureDataDir } from "../store/data_dir.ts";
import { currentRunOwner, type RunOwner } from "../store/run_owner.ts";
import { type HoldOptions, sessionHold } from "./session_hold.ts";
import { writeDoneFile } from "../engine/verify/done_criteria.ts";
import { mark } from "../boot/timings.ts";
import * as path from "../lib/path.ts";
import { GLOBAL_CONFIG_FILE } from "../config/locations.ts";
import { landlockProbeKey } from "../sandbox/landlock/probe_key.ts";
import type { SkiffEvent } from "../contracts/events.ts";

/**
 * `options.events`: the only event types `io.event` needs (`skiff tool`
 * shows warnings alone); the engine still stores every event.
 * @default every type
 */
export async function startEngine(
  spec: EngineSpec,
  io: EngineIO,
  options: { events?: readonly SkiffEvent["type"][] } = {},
): Promise<EngineHandle> {
  mark("config");
  const start = engineStart(spec, io);
  // Inline (tests, measurements): the engine's modules and the store load on this side then.
  const engine = Deno.env.get("SKIFF_ENGINE") === "inline"
    ? await (await import("../engine/handle.ts")).startInProcess(start.spec, start.io)
    : await startInWorker(start.spec, start.io, undefined, options.events);
  mark("engine-started");
  return start.handle(engine);
}

/**
 * What every engine start does around the engine itself, whether it gets a
 * new Worker or a kept one (host/engine_pool.ts): the data folder made here, with
 * this process's rights (one that cannot be made is the user's to fix); the
 * sessions the run writes held for it (session_hold.ts); the SKIFF_TIMINGS
 * marks; a plan run's proposed done criteria written here, with this
 * process's rights.
 */
export function engineStart(spec: EngineSpec, io: EngineIO): {
  spec: EngineSpec;
  io: EngineIO;
  handle(engine: EngineHandle): EngineHandle;
} {
  ensureDataDir(spec.dataDir);
  const held = { ...spec, run: currentRunOwner() };
  // The Worker cannot read /proc: the key of a cached Landlock probe is made here.
  if (spec.sandbox.mode !== "full-access" && spec.sandbox.landlockProbeKey === undefined) {
    held.sandbox = { ...spec.sandbox, landlockProbeKey: landlockProbeKey() };
  }
  return {
    spec: held,
    io: keepingOwnRules(markedIO(io), held),
    handle: (engine) => hostEngine(engine, held),
  };
}

/**
 * In a project the user has not trusted, an "always, here" answer to a
 * call's question is kept in the user's own config (`projects`), written
 * here with this side's rights before the engine hears the answer: the
 * engine's Worker may not write the config folder, and the project's file
 * would make the next start ask to trust the whole project for the user's
 * own rule. When it cannot be written, the answer holds for this session.
 */
function keepingOwnRules(io: EngineIO, spec: EngineSpec): EngineIO {
  const root = spec.ownRulesRoot;
  if (root === undefined) return io;
  return {
    ...io,
    async ask(request) {
      const answer = await io.ask(request);
      if (answer !== "always-here" || request.subject === "project-trust") return answer;
      try {
        const { saveOwnProjectRule } = await import("../permission/project_rules.ts");
        for (const rule of request.always) {
          await saveOwnProjectRule(
            path.join(spec.configDir, GLOBAL_CONFIG_FILE),
            root,
            rule.key,
            rule.patterns,
          );
        }
        return answer;
      } catch {
        return "always";
      }
    },
  };
}

/** SKIFF_TIMINGS phases the events show: the first model request and its answer. */
function markedIO(io: EngineIO): EngineIO {
  let requested = false;
  let answered = false;
  return {
    ...io,
    event(event) {
      if (!requested && event.type === "turn.started") {
        requested = true;
        mark("first-request");
      } else if (!answered && event.type === "message.completed") {
        answered = true;
        mark("first-answer");
      }
      io.event(event);
    },
  };
}

/**
 * `engine` as every front end gets it (run, chat, batch), whether it runs in
 * a Worker or here: `open` first claims the session for `spec.run` and
 * `close` lets go of every session the run holds (session_hold.ts); what a
 * plan run proposed is written here, since the engine's Worker may not write
 * `.skiff/` and the agent never does (the result names the file); the
 * SKIFF_TIMINGS marks of the session's opening and its first tool result.
 */
export function hostEngine(
  engine: EngineHandle,
  spec: EngineSpec & { run: RunOwner },
  options: HoldOptions = {},
): EngineHandle {
  const hold = sessionHold(spec, options);
  let toolDone = false;
  return {
    ...engine,
    async open(selector) {
      const id = await hold.open(selector, (chosen) => engine.open(chosen));
      mark("session-open");
      return id;
    },
    async run(request) {
      const result = await engine.run(request);
      if (result.done) result.doneFile = await writeDoneFile(spec.workspace, result.done);
      return result;
    },
    async runTool(name, input, options) {
      const result = await engine.runTool(name, input, options);
      if (!toolDone) {
        toolDone = true;
        mark("first-tool");
      }
      return result;
    },
    close: () => hold.close(() => engine.close()),
    endCutStart: (cut) => hold.endCutStart(() => engine.close({ keepHold: true }), cut),
  };
}
