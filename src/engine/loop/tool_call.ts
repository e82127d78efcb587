/**
 * One tool call, end to end: announce it, look the tool up, parse the
 * arguments, ask the policy, execute, truncate the output, record the result
 * and report it. The agent loop and `skiff tool` both go through here, so a
 * call behaves (and shows up in the event log) the same either way.
 *
 * The work is split in two because the loop needs it so: `admitToolCall`
 * runs one call at a time (the policy may ask a person), then every admitted
 * call runs together through `executeToolCall`.
 */
import type { ToolCall } from "../../provider/types.ts";
import type { Access, Tool, ToolContext } from "../../tools/tool.ts";
import { ToolError } from "../../tools/tool.ts";
import type { Denial, EventBodies, EventType, ToolErrorPayload } from "../../contracts/events.ts";
import { resultText, type StoredPart } from "./history.ts";

/** One call as the gate sees it. */
export interface GateCall {
  tool: Tool;
  input: unknown;
  callId: string;
  turn: number;
  /** A PreToolUse hook approved it: an "ask" of the rules is answered, a deny stays. */
  hookApproved?: boolean;
  /** The person typed it (ToolCallOptions.typedByPerson): an "ask" is their own yes. */
  typedByPerson?: boolean;
}

/**
 * The session's tool hooks seen from a call (src/hooks/tool_hooks.ts):
 * before the policy, a block refuses the call with the hook's reason and an
 * approval answers the rules' question; after a call that succeeded, text
 * for the model is added to its result.
 */
export interface ToolCallHooks {
  before(
    call: { tool: Tool; input: unknown; callId: string },
    ctx: ToolContext,
  ): Promise<{ block?: string; approved?: boolean }>;
  /** `seen`: the read ledger as it was before the call ran. */
  after(
    call: { tool: Tool; input: unknown; callId: string },
    ctx: ToolContext,
    result: { output: string; metadata?: Record<string, unknown> },
    seen: ReadonlyMap<string, string>,
  ): Promise<string | undefined>;
}

/** Who asked for a call outside a model's turn; the loop's own calls pass none. */
export interface CallOrigin {
  /** The person typed it (ToolCallOptions.typedByPerson). */
  typedByPerson?: boolean;
}

/** The policy seen from a call: one call in, a verdict out (it may ask a person). */
export interface ToolCallGate {
  check(
    call: GateCall,
    ctx: ToolContext,
  ): Promise<{ allowed: true } | { allowed: false; reason: string }>;
  /**
   * More than an allowed call declared, asked for while it runs (webfetch:
   * each redirect's new URL), judged as the call was. Resolves when allowed,
   * throws a ToolError "denied" otherwise. Absent: nothing more is allowed.
   */
  authorize?(call: GateCall, access: Access): Promise<void>;
  denials(): Denial[];
}

export type ToolResultPart = Extract<StoredPart, { type: "tool_result" }>;

export interface ToolCallDeps {
  /** The session's tools by name. */
  tools: ReadonlyMap<string, Tool>;
  gate: Pick<ToolCallGate, "check" | "authorize">;
  emit<K extends EventType>(type: K, body: EventBodies[K]): void;
  /** A ToolContext for one call. */
  context(callId: string, signal: AbortSignal): ToolContext;
  /** Parse the model's raw arguments against the tool's schema (throws ToolError bad_input). */
  parseInput(tool: Tool, raw: string): unknown;
  /** Truncate a tool output for the history, spilling the whole of it. */
  truncate(output: string, callId: string): Promise<string>;
  /** Keeps the result (committed before tool.completed is emitted). */
  record(part: ToolResultPart): void;
  /** The session's PreToolUse and PostToolUse hooks; absent: none. */
  hooks?: ToolCallHooks;
  clock?: () => number;
}

/** A call the policy let through, waiting to run. */
export interface AdmittedCall {
  call: ToolCall;
  turn: number;
  tool: Tool;
  input: unknown;
  ctx: ToolContext;
  signal: AbortSignal;
}

/** Every call runs through all of this: a call or its result. */
export async function runToolCall(
  deps: ToolCallDeps,
  call: ToolCall,
  turn: number,
  signal: AbortSignal,
  origin: CallOrigin = {},
): Promise<ToolResultPart> {
  const admitted = await admitToolCall(deps, call, turn, signal, origin);
  return "result" in admitted ? admitted.result : await executeToolCall(deps, admitted.call);
}

/**
 * Emits tool.started, then looks the tool up, parses the arguments and asks
 * the policy. A call that goes no further is finished here (its result
 * recorded and tool.completed emitted).
 */
export async function admitToolCall(
  deps: ToolCallDeps,
  call: ToolCall,
  turn: number,
  signal: AbortSignal,
  origin: CallOrigin = {},
): Promise<{ call: AdmittedCall } | { result: ToolResultPart }> {
  const clock = deps.clock ?? Date.now;
  let input: unknown = safeJson(call.arguments);
  deps.emit("tool.started", { turn, call_id: call.id, tool: call.name, input });
  const started = clock();
  const tool = deps.tools.get(call.name);
  const ctx = deps.context(call.id, signal);
  try {
    // Stopped (Ctrl-C, perhaps at an earlier call's question): ask nothing more.
    if (signal.aborted) throw notRun();
    if (!tool) {
      throw new ToolError(
        "not_found",
        `There is no tool named "${call.name}".`,
        `Available tools: ${[...deps.tools.keys()].join(", ")}.`,
      );
    }
    // What the call will need (a sandbox) starts now, beside the policy's work.
    tool.prepare?.(ctx);
    input = deps.parseInput(tool, call.arguments);
    const hooked = await deps.hooks?.before({ tool, input, callId: call.id }, ctx);
    if (hooked?.block !== undefined) {
      throw new ToolError(
        "denied",
        `A PreToolUse hook blocked this call: ${hooked.block}`,
        "Do not retry the same call; follow the hook's reason or do the work another way.",
        { blockedByHook: true },
      );
    }
    const gateCall: GateCall = {
      tool,
      input,
      callId: call.id,
      turn,
      ...(hooked?.approved ? { hookApproved: true } : {}),
      ...(origin.typedByPerson ? { typedByPerson: true } : {}),
    };
    const verdict = await deps.gate.check(gateCall, ctx);
    if (!verdict.allowed) throw new ToolError("denied", verdict.reason);
    return {
      call: { call, turn, tool, input, ctx: runningContext(deps.gate, gateCall, ctx), signal },
    };
  } catch (error) {
    return { result: await finish(deps, call, turn, started, error) };
  }
}

/**
 * The context an allowed call runs with: the one it was judged with, and
 * the way to put more to the same gate, for this call and turn. A new
 * object: the context the gate saw is left as it was.
 */
function runningContext(
  gate: Pick<ToolCallGate, "authorize">,
  call: GateCall,
  ctx: ToolContext,
): ToolContext {
  const authorize = gate.authorize;
  if (!authorize) return ctx;
  return { ...ctx, authorize: (access) => authorize.call(gate, call, access) };
}

/** Runs an admitted call, then truncates, records and reports its result. */
export async function executeToolCall(
  deps: ToolCallDeps,
  admitted: AdmittedCall,
): Promise<ToolResultPart> {
  const started = (deps.clock ?? Date.now)();
  let outcome: unknown;
  const seen = deps.hooks ? new Map(admitted.ctx.files.entries()) : undefined;
  try {
    // Stopped while the policy was still deciding: nothing starts after that.
    if (admitted.signal.aborted) throw notRun();
    outcome = await admitted.tool.execute(admitted.input, admitted.ctx);
    if (deps.hooks && seen) outcome = await afterHooks(deps.hooks, admitted, outcome, seen);
  } catch (error) {
    outcome = error;
  }
  return await finish(deps, admitted.call, admitted.turn, started, outcome);
}

/** The call's result with what its PostToolUse hooks said to the model appended. */
async function afterHooks(
  hooks: ToolCallHooks,
  admitted: AdmittedCall,
  outcome: unknown,
  seen: ReadonlyMap<string, string>,
): Promise<unknown> {
  const result = outcome as { output: string; metadata?: Record<string, unknown> };
  const call = { tool: admitted.tool, input: admitted.input, callId: admitted.call.id };
  const said = await hooks.after(call, admitted.ctx, result, seen);
  return said ? { ...result, output: `${result.output}\n\n${said}` } : outcome;
}

async function finish(
  deps: ToolCallDeps,
  call: ToolCall,
  turn: number,
  started: number,
  outcome: unknown,
): Promise<ToolResultPart> {
  const clock = deps.clock ?? Date.now;
  let part: ToolResultPart;
  if (
    outcome && typeof outcome === "object" && "output" in outcome && !(outcome instanceof Error)
  ) {
    const result = outcome as {
      output: string;
      title?: string;
      metadata?: Record<string, unknown>;
    };
    const output = await deps.truncate(result.output, call.id);
    part = {
      type: "tool_result",
      call_id: call.id,
      tool: call.name,
      ok: true,
      output,
      metadata: { ...result.metadata, ...(result.title ? { title: result.title } : {}) },
    };
  } else {
    part = {
      type: "tool_result",
      call_id: call.id,
      tool: call.name,
      ok: false,
      output: "",
      error: toErrorPayload(outcome),
      metadata: outcome instanceof ToolError ? outcome.metadata : undefined,
    };
  }
  deps.record(part);
  deps.emit("tool.completed", {
    turn,
    call_id: call.id,
    tool: call.name,
    ok: part.ok,
    title: String(part.metadata?.title ?? ""),
    output: part.ok ? part.output : resultText(part),
    ...(part.error ? { error: part.error } : {}),
    ...(part.metadata ? { metadata: part.metadata } : {}),
    duration_ms: clock() - started,
  });
  return part;
}

function notRun(): ToolError {
  return new ToolError("failed", "Not run: the session was stopped before this call started.");
}

/** What a thrown error tells the model: a ToolError as it is, the sandbox's refusals explained. */
export function toErrorPayload(error: unknown): ToolErrorPayload {
  if (error instanceof ToolError) return error.toJSON();
  if (error instanceof Deno.errors.NotCapable) {
    return {
      code: "not_capable",
      message: `skiff's sandbox refused this: ${error.message}`,
      hint: "The path or host is outside what this session may touch. Stay inside the workspace.",
    };
  }
  if (error instanceof Deno.errors.NotFound) {
    return { code: "not_found", message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "failed", message };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
