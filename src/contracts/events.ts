/**
 * The one event stream. Everything a user sees, everything stored and
 * everything a script reads (`--json`) is one of these objects; renderers
 * never reach into the engine. The schema is documented in docs/events.md.
 */

export interface Usage {
  /** Prompt tokens, the cached ones included. */
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Of `input_tokens`, those the endpoint served from its prompt cache; absent when it did not say. */
  cached_input_tokens?: number;
  /** Of `output_tokens`, those spent reasoning; absent when the endpoint did not say. */
  reasoning_tokens?: number;
  /**
   * US dollars: the endpoint's own figure when it reports one (OpenRouter's
   * `usage.cost`), else the model's price times the tokens when the price is
   * known (docs/context.md); never an estimate without one.
   */
  cost_usd?: number;
}

export const emptyUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });

/** Adds `more` into `into`; cached and reasoning tokens and cost are summed once either side reports them. */
export function addUsage(into: Usage, more: Usage): Usage {
  into.input_tokens += more.input_tokens;
  into.output_tokens += more.output_tokens;
  into.total_tokens += more.total_tokens;
  if (more.cached_input_tokens !== undefined) {
    into.cached_input_tokens = (into.cached_input_tokens ?? 0) + more.cached_input_tokens;
  }
  if (more.reasoning_tokens !== undefined) {
    into.reasoning_tokens = (into.reasoning_tokens ?? 0) + more.reasoning_tokens;
  }
  if (more.cost_usd !== undefined) into.cost_usd = (into.cost_usd ?? 0) + more.cost_usd;
  return into;
}

/** A permission the headless broker refused, reported at the end of a run. */
export interface Denial {
  tool: string;
  key: string;
  patterns: string[];
  reason: string;
  /**
   * Command-line arguments that, added to the same run, let this call
   * through (checked against the rules before they are offered); absent
   * when none would (a deny rule).
   */
  allow_with?: string[];
}

/** Where a failure belongs (src/engine/attribution.ts holds the one table that decides). */
export type FailureLayer =
  | "agent"
  | "harness"
  | "workflow"
  | "environment"
  | "provider"
  | "operator"
  | "unknown";

export interface Attribution {
  layer: FailureLayer;
  /** Stable snake_case words, e.g. max_turns, permission_denied, provider_unreachable. */
  reason: string;
}

export interface ToolErrorPayload {
  code: string;
  message: string;
  hint?: string;
}

/** One check of a gate as it last ran. */
export interface VerificationCheck {
  name: string;
  command: string;
  /** null: it did not end by itself (timed out, cancelled, could not start). */
  exit_code: number | null;
  passed: boolean;
  /** What it was to show: "exit 0", or output text it must contain. */
  expected: string;
  /** The last lines of its output, short. */
  summary: string;
  /** The whole output, when it was too long to show (a spilled tool-output file). */
  output_path?: string;
}

/**
 * Where a gate stands after one cycle: the first failing check leads. A type,
 * not an interface, so that event bodies fit `Record<string, unknown>`.
 */
export type VerificationSummary = {
  /** 1-based: the agent's first attempt is cycle 1. */
  cycle: number;
  max_cycles: number;
  passed: boolean;
  /** The leading check's command, exit code, summary and output file. */
  command: string;
  exit_code: number | null;
  summary: string;
  output_path?: string;
  checks: VerificationCheck[];
};

export interface EventBodies {
  "session.started": {
    workspace: string;
    model: string;
    agent: string;
    resumed: boolean;
    parent_id?: string;
  };
  "turn.started": { turn: number };
  "message.delta": { turn: number; text: string };
  /** What the model thinks before it answers, as it streams (not stored as an event; the message keeps it whole). */
  "reasoning.delta": { turn: number; text: string };
  "message.completed": { turn: number; text: string };
  "tool.started": { turn: number; call_id: string; tool: string; input: unknown };
  "tool.completed": {
    turn: number;
    call_id: string;
    tool: string;
    ok: boolean;
    title: string;
    /** What the model receives (already truncated). */
    output: string;
    error?: ToolErrorPayload;
    metadata?: Record<string, unknown>;
    duration_ms: number;
  };
  "permission.asked": {
    turn: number;
    call_id: string;
    tool: string;
    key: string;
    patterns: string[];
  };
  "permission.decided": {
    turn: number;
    call_id: string;
    tool: string;
    decision: "allow" | "deny";
    /** `hook`: a PreToolUse hook answered the rules' question (docs/hooks.md). */
    source: "rule" | "user" | "headless" | "yes" | "hook";
  };
  "provider.retry": { attempt: number; delay_ms: number; reason: string };
  "turn.completed": { turn: number; usage: Usage };
  /** The history sent to the model was made smaller (the store keeps it whole). */
  "context.compacted": {
    turn: number;
    /** prune: old tool outputs lost their bodies; summary: older turns became a handoff. */
    kind: "prune" | "summary";
    /**
     * threshold: our count passed it; overflow: the endpoint refused the
     * request as too long; manual: a person asked (`skiff compact`).
     */
    trigger: "threshold" | "overflow" | "manual";
    tokens_before: number;
    tokens_after: number;
    window: number;
    /** Tool outputs pruned. */
    pruned: number;
    /** Messages the summary replaced. */
    replaced?: number;
    /** The handoff kept in their place. */
    summary?: string;
    /** Why a summary was tried and not used (pruning went further instead). */
    fallback?: string;
  };
  "session.completed": {
    text: string;
    usage: Usage;
    turns: number;
    exit_code: number;
    denials: Denial[];
    /** Present on every run that did not succeed (exit code other than 0). */
    attribution?: Attribution;
    /** A run with a gate (`--until`, `--done`): its last check (docs/verification.md). */
    verification?: VerificationSummary;
  };
  /** A gate's command(s) ran after the agent said it was done (docs/verification.md). */
  "verification.completed": VerificationSummary;
  /** One hook command ran (docs/hooks.md); `blocked`: it refused what its event was about. */
  "hook.completed": {
    /** The event it ran at, in Claude Code's spelling (`PreToolUse`, `Stop`, …). */
    hook_event: string;
    command: string;
    /** Where it was written: skiff-user, claude-user, skiff-project or claude-project. */
    source: string;
    /** False when it failed (an exit status other than 0 or 2), timed out or could not start. */
    ok: boolean;
    exit_code: number | null;
    timed_out?: boolean;
    blocked?: boolean;
    /** It ran with the user's own rights, outside the sandbox. */
    unsandboxed?: boolean;
    /** The tool call it ran for. */
    call_id?: string;
    /** What it printed, stderr first (cut). */
    output: string;
    duration_ms: number;
  };
  "error": { code: string; message: string; exit_code: number };
  "warning": { message: string };
}

export type EventType = keyof EventBodies;

export type SkiffEvent = {
  [K in EventType]: { type: K; session_id: string; timestamp: string } & EventBodies[K];
}[EventType];

export type EventOf<K extends EventType> = Extract<SkiffEvent, { type: K }>;

/** Build an event with its envelope. `now` is injectable for tests. */
export function makeEvent<K extends EventType>(
  type: K,
  sessionId: string,
  body: EventBodies[K],
  now: () => Date = () => new Date(),
): EventOf<K> {
  return {
    type,
    session_id: sessionId,
    timestamp: now().toISOString(),
    ...body,
  } as unknown as EventOf<K>;
}

export type EventSink = (event: SkiffEvent) => void;
